import { readConfigKeys } from '../../git/config-file.js';

/**
 * A checkpoint repository's `core.worktree`, as `git config --file <gitdir>/config --get
 * core.worktree` answers it (src/git/config-file.ts).
 */
export type RecordedWorktree =
  | { state: 'recorded'; value: string; via: ReadVia }
  | { state: 'unrecorded'; via: ReadVia }
  | { state: 'unreadable'; problem: string; via: 'git'; incomplete?: boolean };

/** Who answered: this process from the file's text, or a `git config` process. */
type ReadVia = 'file' | 'git';

export async function readRecordedWorktree(configFile: string): Promise<RecordedWorktree> {
  const read = await readConfigKeys(configFile, ['core.worktree']);
  if (read.state === 'unreadable')
    return { state: 'unreadable', problem: read.problem, via: 'git', ...(read.incomplete ? { incomplete: true } : {}) };
  const value = read.values.get('core.worktree');
  return value === undefined ? { state: 'unrecorded', via: read.via } : { state: 'recorded', value, via: read.via };
}
