import type { Reason } from './types.js';

/** Bad usage or an invalid config: exit 2, nothing read or changed. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export class ConfigError extends UsageError {
  override name = 'ConfigError';
}

/** Another pass holds the run lock: exit 75, nothing done. */
export class LockHeldError extends Error {
  override name = 'LockHeldError';
}

/** A provider's source of truth could not be read: that provider fails closed, the pass goes on. */
export class SourceOfTruthError extends Error {
  override name = 'SourceOfTruthError';
}

/**
 * A deletion stopped before anything in the item was lost, by a re-check (the owner's record read
 * again, the last proof) or by the owner's tool refusing it (`git worktree remove`). The item ends
 * `refused`, or `unfinished` where changes were found, with the reason of that check: an action
 * that broke is the only `failed`. The executor maps it.
 */
export class RemovalStopped extends Error {
  override name = 'RemovalStopped';
  constructor(
    readonly verdict: 'refused' | 'unfinished',
    readonly reason: Reason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The stop for a re-check whose judgement is no longer `delete`: `unfinished` stays unfinished, and
 * an item found alive or refused is `refused`, each with its own reason and a detail saying so.
 */
export function stopFor(judgement: { decision: string; reason: Reason; detail: string }): RemovalStopped {
  const verdict = judgement.decision === 'unfinished' ? 'unfinished' : 'refused';
  return new RemovalStopped(verdict, judgement.reason, `judged again just before the delete: ${judgement.detail}`);
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** What was thrown, as an Error: an answer to keep beside the others, not to throw again. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(errorMessage(err));
}

export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
