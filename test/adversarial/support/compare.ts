import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { materializePin } from '../../../src/providers/kilo/layout.js';
import { quarantinedName } from '../../../src/safety/removal/quarantine.js';
import { diffInventories, type Entry } from '../../helpers/inventory.js';

/**
 * What a pass may remove: the folders of the items it deleted, and what goes with them by the
 * owner's own rules: the git admin entry of a removed worktree, Owl's worktree-config/<id>/ of a
 * removed job worktree, the pin of a removed Kilo checkpoint repository. `before` maps a path to
 * where the state before the pass can still be read (a pristine copy).
 */
export function targetsOf(
  report: Report,
  options: { kiloRepo?: string; before?: (p: string) => string } = {},
): string[] {
  const before = options.before ?? ((p: string) => p);
  const targets: string[] = [];
  for (const item of report.items) {
    if (item.verdict !== 'deleted' || item.path === null) continue;
    targets.push(item.path);
    if (item.kind === 'worktree') {
      const admin = adminDirOf(before(item.path), item.path);
      if (admin) targets.push(admin);
    }
    if (item.provider === 'owl' && item.kind === 'worktree')
      targets.push(path.join(path.dirname(path.dirname(item.path)), 'worktree-config', path.basename(item.path)));
    if (item.kind === 'checkpoint-repo' && options.kiloRepo)
      targets.push(path.join(options.kiloRepo, '.git', materializePin(item.path)));
  }
  return targets;
}

/** The admin entry a linked worktree's `.git` file names (read at `readable`, a copy of `worktree`). */
export function adminDirOf(readable: string, worktree = readable): string | null {
  try {
    const text = readFileSync(path.join(readable, '.git'), 'utf8');
    const gitdir = /^gitdir: (.*)$/m.exec(text)?.[1];
    return gitdir ? path.resolve(worktree, gitdir.trim()) : null;
  } catch {
    return null;
  }
}

const inside = (roots: readonly string[], key: string) =>
  roots.some((r) => key === r || key.startsWith(`${r}${path.sep}`));

/** A quarantine of one of the targets (`.<name>.cleanup-<uuid>` beside it). */
function quarantineOfTarget(targets: readonly string[], key: string): boolean {
  const parts = key.split(path.sep);
  for (let i = 0; i < parts.length; i += 1) {
    const original = quarantinedName(parts[i] as string);
    if (original === null) continue;
    const target = [...parts.slice(0, i), original].join(path.sep);
    if (targets.includes(target)) return true;
  }
  return false;
}

export interface TouchRules {
  /** Paths relative to the inventoried root that a pass may remove (with all below). */
  targets: string[];
  /** Relative paths the pass may add or change besides (its own lock folder while it held it, say). */
  scratch?: (key: string) => boolean;
}

/**
 * Every entry outside the targets is still there, files byte for byte (content, size, mtime, link
 * text) and folders as folders; nothing was added but a target's quarantine or allowed scratch.
 * Folders may have a new mtime only where a target or its quarantine sat in them.
 */
export function expectOnlyTargetsTouched(
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  rules: TouchRules,
  label = '',
): void {
  const { targets } = rules;
  const scratch = rules.scratch ?? (() => false);
  const parents = new Set(targets.map((t) => path.dirname(t)));
  for (const key of [...before.keys(), ...after.keys()]) if (scratch(key)) parents.add(path.dirname(key));
  const problems: string[] = [];
  for (const [key, entry] of before) {
    if (inside(targets, key) || scratch(key)) continue;
    const now = after.get(key);
    if (!now) {
      if (!emptiedAdminFolder(before, targets, key)) problems.push(`removed: ${key}`);
    } else if (now.type !== entry.type) problems.push(`type changed: ${key}`);
    else if (entry.type !== 'dir' && JSON.stringify(now) !== JSON.stringify(entry)) problems.push(`changed: ${key}`);
    else if (
      entry.type === 'dir' &&
      now.mtimeMs !== entry.mtimeMs &&
      !parents.has(key) &&
      !prunedRefFolder(targets, key) &&
      !emptiedAdminFolder(before, targets, path.join(key, 'worktrees'))
    )
      problems.push(`folder written: ${key}`);
  }
  for (const key of after.keys()) {
    if (before.has(key) || quarantineOfTarget(targets, key) || scratch(key)) continue;
    problems.push(`added: ${key}`);
  }
  expect(problems, `${label} touched something outside its targets`).toEqual([]);
}

/**
 * git removes a folder of its own that a removal left empty: `<common>/worktrees` after its last
 * admin entry (`git worktree remove`), a ref folder after its last ref (`git update-ref -d`).
 */
function emptiedAdminFolder(before: Map<string, Entry>, targets: readonly string[], key: string): boolean {
  const gitOwned =
    (path.basename(key) === 'worktrees' && path.basename(path.dirname(key)) === '.git') ||
    key.includes(`${path.sep}.git${path.sep}refs${path.sep}`);
  if (!gitOwned) return false;
  const below = [...before.keys()].filter(
    (other) => other.startsWith(`${key}${path.sep}`) && before.get(other)?.type !== 'dir',
  );
  return below.length > 0 && below.every((entry) => inside(targets, entry));
}

/** git prunes the ref folders a deleted ref leaves empty; their parents see a new mtime. */
function prunedRefFolder(targets: readonly string[], key: string): boolean {
  return targets.some((t) => t.includes(`${path.sep}refs${path.sep}`) && t.startsWith(`${key}${path.sep}`));
}

/**
 * How a state differs from an expected one, folder mtimes aside (a delete touches its parent's
 * mtime whenever it runs) and the -wal and -shm files SQLite manages beside a database aside.
 */
export function stateDifferences(
  actual: Map<string, Entry>,
  expected: Map<string, Entry>,
): { missing: string[]; changed: string[]; extra: string[] } {
  const strip = (inv: Map<string, Entry>) =>
    new Map(
      [...inv]
        .filter(([key]) => !SQLITE_SIDECAR.test(key))
        .map(([key, entry]) => [key, entry.type === 'dir' ? { ...entry, mtimeMs: 0 } : entry]),
    );
  const diff = diffInventories(strip(expected), strip(actual));
  return { missing: diff.removed, changed: diff.changed, extra: diff.added };
}

const SQLITE_SIDECAR = /\.db-(wal|shm)$/;

/** Inventory keys of absolute paths under `root`. */
export const relativeTo = (root: string) => (p: string) => path.relative(root, p);
