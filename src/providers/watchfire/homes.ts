import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty, readdirSync } from '../../safety/fs/list.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';
import { measureTree, type TreeFacts } from '../../safety/walk/walk.js';

/** What one entry of a `*-home/` folder is, as seen on disk (no judgement yet). */
export interface HomeEvidence {
  path: string;
  name: string;
  /** The `*-home/` folder it sits in (`codex-home`, …). */
  backend: string;
  type: 'directory' | 'symlink';
  /** Newest mtime (ms) of the home and everything in it, or null when it could not be measured. */
  newestWriteMs: number | null;
  /** Why the home could not be read through, when it could not. */
  unreadable?: string;
  /**
   * The first entry Watchfire itself did not install (a file other than the prompt and
   * opencode.json), or null when the home holds only what a start installs.
   */
  ownEntry: string | null;
}

/** The session-home folders of a root: every `*-home` entry that is a folder (or a link to one). */
export async function homeFolders(root: string): Promise<string[]> {
  const entries = await readdirOrEmpty(root);
  return entries
    .filter((entry) => /^.+-home$/.test(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
    .map((entry) => path.join(root, entry.name))
    .sort();
}

/** The entries of a `*-home/` folder that are session homes (quarantines are listed apart). */
export async function homeEntries(
  folder: string,
): Promise<Array<{ path: string; name: string; type: 'directory' | 'symlink' }>> {
  const entries = await readdirOrEmpty(folder);
  const homes: Array<{ path: string; name: string; type: 'directory' | 'symlink' }> = [];
  for (const entry of entries) {
    if (quarantinedName(entry.name) !== null) continue;
    if (entry.isDirectory()) homes.push({ path: path.join(folder, entry.name), name: entry.name, type: 'directory' });
    else if (entry.isSymbolicLink())
      homes.push({ path: path.join(folder, entry.name), name: entry.name, type: 'symlink' });
  }
  return homes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Files a start writes: the prompt, and opencode's permission config (at the top or in `config/`). */
const INSTALLED_FILES = new Set(['AGENTS.md', 'system.md', 'opencode.json']);
const INSTALLED_FILE_FOLDERS = new Set(['', 'config']);

/**
 * Looks at one home: its newest write (with the core's walk, which never follows a link) and
 * whether it holds anything beyond what Watchfire installs at a start.
 */
export async function examineHome(
  home: { path: string; name: string; type: 'directory' | 'symlink' },
  measure: (root: string) => TreeFacts = measureTree,
  whenMeasured?: (roots: readonly string[]) => Promise<void>,
): Promise<HomeEvidence> {
  const evidence: HomeEvidence = {
    path: home.path,
    name: home.name,
    backend: path.basename(path.dirname(home.path)),
    type: home.type,
    newestWriteMs: null,
    ownEntry: null,
  };
  if (home.type === 'symlink') {
    const stats = await lstatOrNull(home.path);
    evidence.newestWriteMs = stats ? stats.mtimeMs : null;
    return evidence;
  }
  await whenMeasured?.([home.path]);
  try {
    const tree = measure(home.path);
    if (tree.error) evidence.unreadable = tree.error;
    else evidence.newestWriteMs = tree.newestWriteMs;
  } catch (err) {
    evidence.unreadable = errorMessage(err);
  }
  if (!evidence.unreadable) {
    try {
      evidence.ownEntry = firstOwnEntry(home.path);
    } catch (err) {
      evidence.unreadable = `cannot list ${home.path}: ${errorMessage(err)}`;
    }
  }
  return evidence;
}

/**
 * The first entry below `home` that a failed start would not have left: anything but folders,
 * symlinks (never followed) and the installed files in their places. Null when there is none.
 */
function firstOwnEntry(home: string): string | null {
  const pending: string[] = [''];
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    for (const entry of readdirSync(path.join(home, relative))) {
      const child = relative === '' ? entry.name : path.join(relative, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) pending.push(child);
      else if (!(entry.isFile() && INSTALLED_FILES.has(entry.name) && INSTALLED_FILE_FOLDERS.has(relative)))
        return child;
    }
  }
  return null;
}
