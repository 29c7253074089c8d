import path from 'node:path';
import type { Anchor, BuiltInSet } from '../../provider-api/provider.js';
import { errorMessage } from '../../model/errors.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { isPlainObject } from '../../util/plain-object.js';
import { codexHomes } from './layout.js';

/**
 * The Codex app's worktrees as a set of the worktrees provider: `$CODEX_HOME/worktrees/<4-hex
 * id>/<repo>`, detached HEAD. The codex provider judges them itself, with Codex's thread database,
 * wherever it finds one (its claimed folders; the set gives way there); the set judges the rest as
 * a tool with no database to ask. Listed first, where it always was.
 */
export const CODEX_SETS: readonly BuiltInSet[] = [
  {
    name: 'codex',
    tool: 'Codex',
    roots: ['{codex-home}/worktrees/*'],
    idleAfter: '7d',
    before: 'claude-code',
    describe: codexWorktreeNote,
  },
];

/** `{codex-home}`: `$CODEX_HOME` for the current user's own home, else `<home>/.codex`. */
export const CODEX_ANCHORS: readonly Anchor[] = [
  {
    name: 'codex-home',
    folders: (ctx) => codexHomes(ctx).map((codex) => ({ folder: codex.codexHome, basis: codex.basis })),
  },
];

/** Larger than any metadata Codex writes; a bigger file is not Codex's. */
const MAX_METADATA_BYTES = 64 * 1024;

/**
 * What Codex wrote about a worktree, for the detail: `codex-worktree.json` (older versions) and
 * `codex-thread.json` in the worktree's git folder (`git rev-parse --git-path`, its admin entry)
 * name the owning thread and the source repository.
 */
function codexWorktreeNote(adminDir: string): string | null {
  const file = path.join(adminDir, 'codex-worktree.json');
  let metadata: Record<string, unknown> | null;
  try {
    metadata = readJson(file);
  } catch (err) {
    return `Codex's ${file} cannot be read: ${errorMessage(err)}`;
  }
  let thread = text(metadata?.ownerThreadId);
  if (!thread) {
    try {
      thread = text(readJson(path.join(adminDir, 'codex-thread.json'))?.ownerThreadId);
    } catch {
      // The thread file only repeats the owner; without it the worktree is told as unbound.
    }
  }
  if (!metadata)
    return thread
      ? `codex-thread.json names Codex thread ${thread}`
      : `no codex-worktree.json in ${adminDir} names a Codex thread for it`;
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
