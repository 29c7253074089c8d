import path from 'node:path';
import type { LockAnswer, LockContext, WorktreeLock } from '../../provider-api/provider.js';
import type { StaleLock } from '../../provider-api/candidate.js';
import { readLockBytes, type WorktreeLink } from './link.js';

/** A worktree's git lock as its set's tool judged it, with the exact bytes it judged. */
export interface JudgedLock {
  bytes: Uint8Array;
  answer: LockAnswer;
}

/** How a set's tool judges a lock of one of its worktrees (SYSTEMS.md 11.1), with what it reads bound in. */
export type LockRule = (link: WorktreeLink) => Promise<JudgedLock | null>;

/**
 * A set's lock rule bound to what it reads: the lock's bytes are read here, once, and handed to the
 * tool's rule; null where the lock is not a small regular file (no rule judges it).
 */
export function lockRuleOf(
  rule: (lock: WorktreeLock, ctx: LockContext) => Promise<LockAnswer>,
  uid: number,
  ctx: LockContext,
): LockRule {
  return async (link) => {
    const bytes = readLockBytes(link.adminDir);
    if (bytes === null) return null;
    return { bytes, answer: await rule({ worktree: link.path, adminDir: link.adminDir, bytes, uid }, ctx) };
  };
}

/** What the executor needs to unlock a worktree whose lock was judged stale, or nothing. */
export function unlockOf(link: WorktreeLink, lock: JudgedLock | null | undefined): StaleLock | undefined {
  if (link.lockedReason === null || lock?.answer?.state !== 'stale') return undefined;
  return { lockedFile: path.join(link.adminDir, 'locked'), bytes: lock.bytes };
}
