import { readConfigKeys } from '../../git/config-file.js';
import { IncompleteAnswer } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs/stat.js';

/** What identifies a shadow repository: its worktree and the identity its extension gave it. */
export interface ShadowConfig {
  /** `core.worktree` as recorded, or null when unset. */
  worktree: string | null;
  userName: string | null;
  userEmail: string | null;
}

const KEYS = ['core.worktree', 'user.name', 'user.email'] as const;

/**
 * Reads a shadow repository's config file (src/git/config-file.ts: in this process where git
 * wrote it plainly, else by git). Throws when the file cannot be read at all, an IncompleteAnswer
 * when git could read only part of it (rule 22).
 */
export async function readShadowConfig(configFile: string): Promise<ShadowConfig> {
  const stats = await lstatOrNull(configFile);
  if (!stats) throw new Error(`${configFile} does not exist`);
  if (!stats.isFile()) throw new Error(`${configFile} is not a regular file`);
  const read = await readConfigKeys(configFile, KEYS);
  if (read.state === 'unreadable') {
    if (read.incomplete) throw new IncompleteAnswer(`git config --file ${configFile}: ${read.problem}`, null);
    throw new Error(`git config --file ${configFile}: ${read.problem}`);
  }
  return {
    worktree: read.values.get('core.worktree') ?? null,
    userName: read.values.get('user.name') ?? null,
    userEmail: read.values.get('user.email') ?? null,
  };
}
