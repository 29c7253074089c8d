import path from 'node:path';
import { readdirNamesSync } from '../fs/list.js';
import { readKernelFileSync } from '../fs/read.js';
import { realpathSync } from '../fs/stat.js';
import { isInside } from '../inside.js';
import { readLinkIfPresent, stripDeleted, type ProcessView } from './process-view.js';

/** A running git process, and every path it names or holds: where it may be writing. */
export interface GitProcess {
  pid: number;
  /** Its working directory, its arguments and GIT_DIR-like variables (made absolute against it), its open and mapped files. */
  paths: string[];
}

/** git's own programs: `git`, and the helpers it runs (`git-remote-https`, `git-lfs`); comm is cut to 15 characters. */
const GIT_PROGRAM = /^git(-.*)?$/;

/** The variables that point git at a repository's folders (not its work tree). */
const GIT_DIR_VARIABLES = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_INDEX_FILE'];

/**
 * Looks again at a process the scan inspected, when it runs git (by its command name or its
 * executable): its command line, the GIT_DIR-like variables of its environment, and the targets
 * of its descriptors, each as a path. `git --git-dir <G> gc` works in G from wherever it was
 * started, and its children (repack, pack-objects) learn G from GIT_DIR alone; between its steps
 * it may hold nothing in G. Null for any other process; what cannot be read is left out.
 */
export function readGitProcess(dir: string, pid: number, view: ProcessView): GitProcess | null {
  const exe = readLinkIfPresentQuietly(path.join(dir, 'exe'));
  if (!GIT_PROGRAM.test(view.command) && !(exe !== null && GIT_PROGRAM.test(path.basename(stripDeleted(exe)))))
    return null;
  const cwd = view.cwd.startsWith('/') ? view.cwd : '/';
  const paths = [cwd, ...view.paths.filter((p) => p !== '/')];
  const args = readNulSeparated(path.join(dir, 'cmdline')).slice(1);
  for (const arg of args) {
    // `--git-dir=<G>` and `-C <G>` alike: every argument, and what follows an `=`, as a path.
    paths.push(path.resolve(cwd, arg));
    const equals = arg.indexOf('=');
    if (equals > 0) paths.push(path.resolve(cwd, arg.slice(equals + 1)));
  }
  for (const variable of readNulSeparated(path.join(dir, 'environ'))) {
    const equals = variable.indexOf('=');
    if (equals > 0 && GIT_DIR_VARIABLES.includes(variable.slice(0, equals)) && equals < variable.length - 1)
      paths.push(path.resolve(cwd, variable.slice(equals + 1)));
  }
  const fdDir = path.join(dir, 'fd');
  let fds: string[] = [];
  try {
    fds = readdirNamesSync(fdDir);
  } catch {
    // Closed meanwhile, or not ours to read: its other paths still count.
  }
  for (const fd of fds) {
    const target = readLinkIfPresentQuietly(`${fdDir}/${fd}`);
    if (target?.startsWith('/')) paths.push(stripDeleted(target));
  }
  return { pid, paths: [...new Set(paths)] };
}

/** The git processes that name or hold anything inside `dir` (itself included), by its lexical and its canonical path. */
export function gitProcessesInside(gitProcesses: readonly GitProcess[], dir: string): number[] {
  const lexical = path.resolve(dir);
  let canonical: string | null = null;
  try {
    canonical = realpathSync(lexical);
  } catch {
    // Gone or unreadable: its path is all there is to match.
  }
  const pids = gitProcesses
    .filter((git) => git.paths.some((p) => isInside(lexical, p) || (canonical !== null && isInside(canonical, p))))
    .map((git) => git.pid);
  return [...new Set(pids)].sort((a, b) => a - b);
}

function readNulSeparated(file: string): string[] {
  try {
    return readKernelFileSync(file)
      .split('\0')
      .filter((part) => part !== '');
  } catch {
    return [];
  }
}

function readLinkIfPresentQuietly(p: string): string | null {
  try {
    return readLinkIfPresent(p);
  } catch {
    return null;
  }
}
