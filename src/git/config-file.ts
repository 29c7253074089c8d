import { errorMessage } from '../model/errors.js';
import { readRegularFile } from '../safety/fs/read.js';
import { plainConfigValues } from './config-text.js';
import { IncompleteAnswer, lastLine, runGit } from './git.js';

/**
 * Some keys of a repository's config file, as `git config --file <file>` answers them: read in
 * this process when the file is one of the plain files git writes itself (a git process costs
 * more to start than the whole read), asked of git otherwise, which is always right. The file is
 * read itself, not through `git --git-dir`, which refuses a repository whose worktree is gone.
 */
export type ConfigRead =
  | { state: 'read'; values: ReadonlyMap<string, string>; via: 'file' | 'git' }
  | { state: 'unreadable'; problem: string; incomplete?: boolean };

/** Larger than any config git writes for a checkpoint or shadow repository; a bigger file is git's to read. */
const MAX_CONFIG_BYTES = 64 * 1024;

export async function readConfigKeys(configFile: string, keys: readonly string[]): Promise<ConfigRead> {
  const text = await readPlainFile(configFile);
  const reading = text === null ? null : plainConfigValues(text, keys);
  if (reading?.kind === 'values') return { state: 'read', values: reading.values, via: 'file' };
  return askGit(configFile, keys);
}

async function askGit(configFile: string, keys: readonly string[]): Promise<ConfigRead> {
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(['config', '--null', '--file', configFile, '--get-regexp', keysPattern(keys)]);
  } catch (err) {
    // git could not read all of it (rule 22): the caller must tell that from a config that is wrong.
    return {
      state: 'unreadable',
      problem: errorMessage(err),
      ...(err instanceof IncompleteAnswer ? { incomplete: true } : {}),
    };
  }
  // Exit 1: none of the keys is set (a missing file reads as an empty one, as `git config --get` has it).
  if (result.code === 1) return { state: 'read', values: new Map(), via: 'git' };
  if (result.code !== 0) return { state: 'unreadable', problem: lastLine(result.stderr) };
  const values = new Map<string, string>();
  for (const record of result.stdout.split('\0')) {
    const newline = record.indexOf('\n');
    const key = (newline === -1 ? record : record.slice(0, newline)).toLowerCase();
    // git answers the last value of a key set twice, and an empty one for a key without `=`.
    if (keys.includes(key)) values.set(key, newline === -1 ? '' : record.slice(newline + 1));
  }
  return { state: 'read', values, via: 'git' };
}

/** `^(core\.worktree|user\.name)$`: exactly the keys asked about. */
const keysPattern = (keys: readonly string[]): string =>
  `^(${keys.map((key) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;

/** The file's text when it is a regular file (never through a link, never a FIFO), small, and UTF-8. */
function readPlainFile(file: string): Promise<string | null> {
  return readRegularFile(file, async (handle, stats) => {
    if (stats.size > MAX_CONFIG_BYTES) return null;
    const bytes = await handle.readFile();
    if (bytes.length > MAX_CONFIG_BYTES) return null;
    // A byte sequence that is not UTF-8 is not decoded with replacements: git is asked instead.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  });
}
