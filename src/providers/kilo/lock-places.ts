import path from 'node:path';
import { errorCode, errorMessage } from '../../model/errors.js';
import { processPathIs, processRoot, sameFolderFrom } from '../../safety/identity/process-paths.js';
import { identityOf } from '../../safety/identity/recorded.js';
import { spellingsThroughLinks } from '../../safety/identity/spellings.js';
import { readdirNamesSync } from '../../safety/fs/list.js';
import type { ProcessTable } from '../../safety/processes/processes.js';
import { passwdHome } from '../../safety/processes/user-names.js';
import { lockDirectory, snapshotRoot, type KiloLocation } from './layout.js';
import { inspectLockSync, type LockState } from './lock.js';

/**
 * Kilo Code names a repository's snapshot lock by the text of its git folder's path, as Kilo Code
 * spelled it: `$XDG_DATA_HOME/kilo/…`, or `$HOME/.local/share/kilo/…` with `$HOME` as that process
 * had it (a link, a container's `/workspace`). The pass looks the lock up under every spelling
 * Kilo Code could have used (rule 25).
 */
export interface SnapshotLocks {
  /** `<state>/locks`: where Kilo Code keeps its locks of this data folder. */
  locksDir: string;
  stateDir: string;
  /** `<data>/snapshot` as the pass spells it. */
  root: string;
  /** Every spelling of it Kilo Code may have hashed, the pass's own first. */
  roots: string[];
}

/** The variables Kilo Code finds its data folder with, read from every process of a home's owner. */
export const KILO_VARIABLES = ['HOME', 'XDG_DATA_HOME'];

/**
 * The spellings of a data folder's snapshot folder: through each link on its way (the canonical
 * path among them), from the home the passwd database names for its owner, from the pass's own
 * `$HOME` and `$XDG_DATA_HOME`, and from those of every process of the owner (a Kilo Code it
 * starts inherits them), each resolved through that process's own root. A spelling is kept when
 * it leads to the same folder, or where that cannot be told. Null for an app without the lock.
 */
export function snapshotLocksOf(
  location: KiloLocation,
  uid: number | null,
  processes: ProcessTable | null,
  env: NodeJS.ProcessEnv,
): SnapshotLocks | null {
  if (location.app === 'opencode' || !location.stateDir) return null;
  const app = path.basename(location.dataDir);
  const root = snapshotRoot(location.dataDir);
  const folder = identityOf(root);
  const roots = new Set(spellingsThroughLinks('/', root));
  const fromHome = (home: string) => path.join(home, '.local', 'share', app, 'snapshot');
  const fromData = (data: string) => path.join(data, app, 'snapshot');
  const named = (vars: Readonly<Record<string, string | undefined>>) => [
    ...(absolute(vars.XDG_DATA_HOME) ? [fromData(vars.XDG_DATA_HOME)] : []),
    ...(absolute(vars.HOME) ? [fromHome(vars.HOME)] : []),
  ];
  const listed = uid === null ? null : passwdHome(uid);
  for (const spelled of [...(absolute(listed) ? [fromHome(listed)] : []), ...named(env)])
    if (folder === null || sameFolderFrom('/', spelled, folder) !== 'other')
      for (const each of spellingsThroughLinks('/', spelled)) roots.add(each);
  const seen = new Set<string>();
  for (const record of processes?.records.values() ?? []) {
    if (record.uid !== uid || !record.vars || !processes) continue;
    const view = processRoot(processes.procRoot, record.pid);
    const viewId = identityOf(view);
    for (const spelled of named(record.vars)) {
      // Processes that share a root and a value need one look between them.
      const key = `${viewId ? `${viewId.dev}:${viewId.ino}` : record.pid}\0${spelled}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (folder === null || processPathIs(processes.procRoot, record.pid, spelled, folder) !== false)
        for (const each of spellingsThroughLinks(view, spelled)) roots.add(each);
    }
  }
  return {
    locksDir: path.join(location.stateDir, 'locks'),
    stateDir: location.stateDir,
    root,
    roots: [...roots],
  };
}

const absolute = (value: string | null | undefined): value is string =>
  typeof value === 'string' && path.isAbsolute(value);

/** Every lock folder Kilo Code may have made for a folder under `<data>/snapshot` (a repository, an old per-project one). */
export function lockDirsOf(locks: SnapshotLocks, gitdir: string): string[] {
  const below = path.relative(locks.root, gitdir);
  return [...new Set(locks.roots.map((root) => lockDirectory(locks.stateDir, path.join(root, below))))];
}

type Held = Extract<LockState, { state: 'fresh' }>;

/** What Kilo Code's lock folder holds at one moment. */
export interface LockSurvey {
  /** Why the lock folder cannot be listed: then no repository of it can be told unlocked. */
  problem?: string;
  /** Every held lock (a fresh heartbeat), by its folder. */
  held: Map<string, Held>;
  /** The held locks no spelling of any known repository names: each may be any repository's. */
  unattributed: string[];
}

/**
 * Lists the lock folder once and tells which held locks belong to which of `gitdirs` (every
 * repository of the data folder the pass knows of). `ours` are the lock folders this pass holds.
 */
export function surveyLocks(
  locks: SnapshotLocks,
  gitdirs: Iterable<string>,
  nowMs: number,
  ours: ReadonlySet<string> = new Set(),
): LockSurvey {
  const survey: LockSurvey = { held: new Map(), unattributed: [] };
  let names: string[];
  try {
    names = readdirNamesSync(locks.locksDir);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return survey;
    return { ...survey, problem: `Kilo Code's lock folder ${locks.locksDir} cannot be read: ${errorMessage(err)}` };
  }
  const named = new Set<string>();
  for (const gitdir of gitdirs) for (const lockDir of lockDirsOf(locks, gitdir)) named.add(path.basename(lockDir));
  for (const name of names.filter((each) => each.endsWith('.lock')).sort()) {
    const lockDir = path.join(locks.locksDir, name);
    if (ours.has(lockDir)) continue;
    let state: LockState;
    try {
      state = inspectLockSync(lockDir, nowMs);
    } catch (err) {
      return { ...survey, problem: `the snapshot lock ${lockDir} cannot be read: ${errorMessage(err)}` };
    }
    if (state.state !== 'fresh') continue;
    survey.held.set(lockDir, state);
    if (!named.has(name)) survey.unattributed.push(lockDir);
  }
  return survey;
}

/** The lock that keeps a repository, as a survey found it. */
export interface SeenLock {
  lock: LockState;
  /** The lock folder that is held, or else the one the pass would take first. */
  lockDir: string;
  /** The lock held is none of this repository's spellings, and may be its lock all the same. */
  unattributed?: true;
  problem?: string;
}

/** Its own lock held under any spelling; else a held lock no repository can be told from; else free. */
export function lockOf(survey: LockSurvey, locks: SnapshotLocks, gitdir: string): SeenLock {
  const own = lockDirsOf(locks, gitdir);
  const first = own[0] as string;
  if (survey.problem) return { lock: { state: 'free' }, lockDir: first, problem: survey.problem };
  for (const lockDir of own) {
    const held = survey.held.get(lockDir);
    if (held) return { lock: held, lockDir };
  }
  const other = survey.unattributed[0];
  if (other) return { lock: survey.held.get(other) as Held, lockDir: other, unattributed: true };
  return { lock: { state: 'free' }, lockDir: first };
}
