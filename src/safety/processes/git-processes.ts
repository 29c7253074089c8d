import path from 'node:path';
import { readdirNamesSync } from '../fs/list.js';
import { lstatOrNullSync, realpathSync } from '../fs/stat.js';
import { framesAbove, resolveFrom, sameIdentity, type Identity, type Resolution } from '../identity/resolve.js';
import { isInside } from '../inside.js';
import { readKernelFileSync } from '../fs/read.js';
import { classify, readLinkIfPresent, stripDeleted, type ProcessView } from './process-view.js';
import { statFields } from './stat-fields.js';

/** A running git process, and every place it names or holds: where it may be writing. */
export interface GitProcess {
  pid: number;
  uid: number | null;
  /** Its working directory, arguments, GIT_DIR-like variables and open files, as it spells them (for a person). */
  paths: string[];
  /**
   * The same places as identities, each resolved through the process's own root and working
   * directory (rule 25): a git in a container, or started through a link, is found by what it
   * reaches, not by how it spells it.
   */
  reaches: Resolution[];
  /** Why some of its places cannot be resolved: it then counts as at work wherever it could reach (rule 26). */
  unresolved?: string;
}

/** git's own programs: `git`, and the helpers it runs (`git-remote-https`, `git-lfs`); comm is cut to 15 characters. */
const GIT_PROGRAM = /^git(-.*)?$/;

/** The variables that point git at a repository's folders. */
export const GIT_VARIABLES = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_INDEX_FILE', 'GIT_WORK_TREE'];

/** Whether a process runs git, by its command name or its executable. */
function runsGit(view: ProcessView): boolean {
  return GIT_PROGRAM.test(view.command) || (view.exe !== null && GIT_PROGRAM.test(path.basename(view.exe)));
}

/**
 * Looks again at a process the scan inspected, when it runs git, stopped or not (rule 26): its
 * working directory, every argument (and what follows an `=`), the GIT_DIR-like variables of its
 * environment and its open files, each resolved to identities through `/proc/<pid>/root` and
 * `/proc/<pid>/cwd` (rule 25). `git --git-dir <G> gc` works in G from wherever it was started, and
 * its children (repack, pack-objects) learn G from GIT_DIR alone; between its steps it may hold
 * nothing in G. Null for any other process.
 */
export function readGitProcess(dir: string, pid: number, view: ProcessView): GitProcess | null {
  if (!runsGit(view)) return null;
  const git: GitProcess = { pid, uid: view.uid, paths: [], reaches: [] };
  const unknown = (why: string) => {
    git.unresolved ??= why;
  };
  const root = path.join(dir, 'root');
  const cwdFrames = framesAbove(path.join(dir, 'cwd'), root);
  const cwd = view.cwd.startsWith('/') ? view.cwd : '/';
  const named: string[] = [];
  for (const arg of view.argv?.slice(1) ?? []) {
    named.push(arg);
    const equals = arg.indexOf('=');
    if (equals > 0) named.push(arg.slice(equals + 1));
  }
  if (view.argv === null) unknown(`the command line of process ${pid} cannot be read`);
  if (view.vars === null) unknown(view.environError ?? `the environment of process ${pid} cannot be read`);
  for (const variable of GIT_VARIABLES) {
    const value = view.vars?.[variable];
    if (value) named.push(value);
  }
  for (const fd of openFiles(dir)) named.push(fd);
  git.paths = [...new Set([cwd, ...named.map((each) => path.resolve(cwd, each))])];
  if ('why' in cwdFrames) {
    unknown(cwdFrames.why);
    return endedMeanwhile(dir) ? null : git;
  }
  git.reaches.push({ state: 'found', chain: cwdFrames.map((frame) => frame.id).reverse() });
  for (const each of new Set(named.filter((name) => name !== ''))) {
    const reached = resolveFrom(root, each, { start: cwdFrames, dangling: 'missing' });
    if (reached.state === 'unknown') unknown(`process ${pid} names ${each}: ${reached.why}`);
    else git.reaches.push(reached);
  }
  return git.unresolved !== undefined && endedMeanwhile(dir) ? null : git;
}

/**
 * Whether a process whose places could not all be resolved has ended since the scan saw it (gone,
 * or a zombie): then it works nowhere. One that cannot be looked at for any other reason is alive.
 */
function endedMeanwhile(dir: string): boolean {
  try {
    const stat = readKernelFileSync(path.join(dir, 'stat'));
    const state = statFields(stat)[0];
    return state === 'Z' || state === 'X';
  } catch (err) {
    return classify(err) === 'gone';
  }
}

/** The targets of a process's descriptors, as it names them (files it may be writing). */
function openFiles(dir: string): string[] {
  const fdDir = path.join(dir, 'fd');
  let fds: string[] = [];
  try {
    fds = readdirNamesSync(fdDir);
  } catch {
    // Closed meanwhile, or not ours to read: its other places still count.
  }
  const files: string[] = [];
  for (const fd of fds) {
    try {
      const target = readLinkIfPresent(`${fdDir}/${fd}`);
      if (target?.startsWith('/')) files.push(path.dirname(stripDeleted(target)));
    } catch {
      // Closed meanwhile.
    }
  }
  return files;
}

/**
 * The git processes at work in a folder (rule 26): one whose places reach it by identity (itself,
 * or anything inside it), one that names it by its lexical or canonical path, and, for a
 * repository, one whose places cannot all be resolved while it could reach the folder (root's, the
 * folder owner's, or of an unknown user).
 */
export function gitProcessesInside(
  gitProcesses: readonly GitProcess[],
  dir: string,
  { unresolvedCount = true }: { unresolvedCount?: boolean } = {},
): number[] {
  const lexical = path.resolve(dir);
  let canonical: string | null = null;
  try {
    canonical = realpathSync(lexical);
  } catch {
    // Gone or unreadable: its path is all there is to match.
  }
  const stats = lstatOrNullSync(canonical ?? lexical);
  const identity: Identity | null = stats ? { dev: stats.dev, ino: stats.ino } : null;
  const pids = gitProcesses
    .filter(
      (git) =>
        git.paths.some((p) => isInside(lexical, p) || (canonical !== null && isInside(canonical, p))) ||
        (identity !== null && git.reaches.some((reach) => reaches(reach, identity))) ||
        (unresolvedCount &&
          git.unresolved !== undefined &&
          (git.uid === null || git.uid === 0 || git.uid === stats?.uid)),
    )
    .map((git) => git.pid);
  return [...new Set(pids)].sort((a, b) => a - b);
}

/** Whether a resolved place is the folder or lies inside it. */
function reaches(reach: Resolution, folder: Identity): boolean {
  return reach.state !== 'unknown' && reach.chain.some((each) => sameIdentity(each, folder));
}
