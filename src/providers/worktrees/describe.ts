import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import type { WorktreeLink } from '../../engines/git-worktree/link.js';
import { isPlainObject } from '../../util/plain-object.js';

/** "set codex (Codex)": who found the worktree, and the tool of a built-in set. */
export function describeSet(name: string, tool: string | undefined): string {
  return tool ? `set ${name} (${tool})` : `set ${name}`;
}

/** Larger than any metadata Codex writes; a bigger file is not Codex's. */
const MAX_METADATA_BYTES = 64 * 1024;

/**
 * What the worktree's tool wrote about it, where it writes something: Codex keeps
 * `codex-worktree.json` (and `codex-thread.json`) in the worktree's git folder, the folder
 * `git rev-parse --git-path` names, which for a linked worktree is its admin entry.
 */
export function ownerNote(set: string, link: WorktreeLink): string | null {
  if (set !== 'codex') return null;
  const file = path.join(link.adminDir, 'codex-worktree.json');
  let metadata: Record<string, unknown> | null;
  try {
    metadata = readJson(file);
  } catch (err) {
    return `Codex's ${file} cannot be read: ${errorMessage(err)}`;
  }
  if (!metadata) return `no codex-worktree.json in ${link.adminDir} names a Codex thread for it`;
  let thread = text(metadata.ownerThreadId);
  if (!thread) {
    try {
      thread = text(readJson(path.join(link.adminDir, 'codex-thread.json'))?.ownerThreadId);
    } catch {
      // The thread file only repeats the owner; without it the worktree is told as unbound.
    }
  }
  const source = text(metadata.sourceRepoRoot);
  const owner = thread ? `Codex thread ${thread}` : 'no Codex thread yet';
  return `codex-worktree.json names ${owner}${source ? `, source repository ${source}` : ''}`;
}

function readJson(file: string): Record<string, unknown> | null {
  const bytes = readRegularFileSync(file, MAX_METADATA_BYTES);
  if (!bytes) return null;
  const value: unknown = JSON.parse(bytes.toString('utf8'));
  if (!isPlainObject(value)) throw new Error('not a JSON object');
  return value;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
