import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { canRunInEach, EACH, runGitInEach } from '../../git/each.js';
import { type GitError, type GitResult, IncompleteAnswer, lastLine, runGit } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { mapLimit } from '../../util/limit.js';
import { readShadowConfig, type ShadowConfig } from './git-config.js';

/** What a pass reads of one shadow ("checkpoint") repository: `<folder>/.git` and nothing else. */
export interface ShadowRepoFacts {
  /** The folder an extension made for the repository (`checkpoints/<hash>`, `tasks/<id>/checkpoints`). */
  folder: string;
  gitdir: string;
  /** `.git` is a real folder (not a file, a link or missing). */
  gitdirIsFolder: boolean;
  /** Entries of the folder other than `.git`: an extension keeps nothing else there. */
  strayEntries: string[];
  config: ShadowConfig | null;
  configProblem?: string;
  commits: CommitFacts | null;
  gitProblem?: string;
  /** git said it could not read part of the repository (its config or its commits): rule 22. */
  unreadableContent?: string;
  /** git's lock files: a git process is writing the repository (or died while it did). */
  lockFiles: string[];
}

export interface CommitFacts {
  /** Every distinct subject of the commits the refs reach (reflogs are git's garbage, not counted). */
  subjects: string[];
  /** Every branch name (`refs/heads/…` without the prefix) and other ref that names a commit. */
  branches: string[];
  count: number;
  /** Committer time of the newest commit, in ms. */
  newestMs: number | null;
}

/** The repository's own lock files that git leaves while it writes: index, HEAD, config, packed refs, refs. */
const TOP_LOCKS = ['index.lock', 'HEAD.lock', 'config.lock', 'packed-refs.lock', 'shallow.lock'];

/**
 * Reads each shadow repository: its folder, config and lock files, then its commits. The commits
 * of every repository are asked of one `git log` each, run a batch at a time by a shell
 * (src/git/each.ts); a log that failed there, or whose answer could not be told apart, is asked
 * again on its own, so that its error is git's own.
 */
export async function readShadowRepos(folders: readonly string[]): Promise<ShadowRepoFacts[]> {
  const all = await mapLimit(folders, 4, (folder) => readOwnFiles(folder));
  const logged = all.filter((facts) => facts.gitdirIsFolder);
  const batched = logged.filter((facts) => canRunInEach(facts.folder));
  const answers = new Map<ShadowRepoFacts, GitResult | GitError | null>();
  const batches: ShadowRepoFacts[][] = [];
  const size = Math.min(LOGS_PER_SHELL, Math.ceil(batched.length / SHELLS_AT_ONCE));
  for (let k = 0; k < batched.length; k += size) batches.push(batched.slice(k, k + size));
  await mapLimit(batches, SHELLS_AT_ONCE, async (batch) => {
    const answered = await runGitInEach(
      batch.map((facts) => facts.folder),
      ['-C', EACH, ...logOf('.git', '.')],
    );
    for (const [k, facts] of batch.entries()) answers.set(facts, answered[k] ?? null);
  });
  await mapLimit(logged, 4, async (facts) => {
    const answer = answers.get(facts);
    try {
      if (answer instanceof Error) throw answer;
      facts.commits = answer && answer.code === 0 ? commitsOf(answer, facts.gitdir) : await readCommits(facts.gitdir);
    } catch (err) {
      facts.gitProblem = errorMessage(err);
      if (err instanceof IncompleteAnswer) facts.unreadableContent = facts.gitProblem;
    }
  });
  return all;
}

/** A shell runs at most this many logs one after another; two shells at once keep both of a small host's CPUs busy. */
const LOGS_PER_SHELL = 100;
const SHELLS_AT_ONCE = 2;

async function readOwnFiles(folder: string): Promise<ShadowRepoFacts> {
  const gitdir = path.join(folder, '.git');
  const facts: ShadowRepoFacts = {
    folder,
    gitdir,
    gitdirIsFolder: false,
    strayEntries: [],
    config: null,
    commits: null,
    lockFiles: [],
  };
  for (const entry of await readdirOrEmpty(folder)) {
    if (entry.name === '.git') facts.gitdirIsFolder = entry.isDirectory();
    else facts.strayEntries.push(entry.name);
  }
  if (!facts.gitdirIsFolder) return facts;
  try {
    facts.config = await readShadowConfig(path.join(gitdir, 'config'));
  } catch (err) {
    facts.configProblem = errorMessage(err);
    if (err instanceof IncompleteAnswer) facts.unreadableContent = facts.configProblem;
  }
  facts.lockFiles = await gitLockFiles(gitdir);
  return facts;
}

/** git's lock files in a git dir: the ones beside HEAD, and any `*.lock` under `refs/`. */
async function gitLockFiles(gitdir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of TOP_LOCKS) {
    const file = path.join(gitdir, name);
    if (await lstatOrNull(file).catch(() => null)) found.push(file);
  }
  const pending = [path.join(gitdir, 'refs')];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of await readdirOrEmpty(dir).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.name.endsWith('.lock')) found.push(full);
    }
  }
  return found.sort();
}

const FIELD = '\x1f';

/**
 * One `git log --all` over the repository's refs: each commit's subject and committer time, and the
 * refs at the tips. The worktree is never touched (log needs none, and a worktree that is gone is
 * no error), no optional lock is taken, and signatures are not checked.
 */
export async function readCommits(gitdir: string): Promise<CommitFacts> {
  return commitsOf(await runGit(logOf(gitdir, path.dirname(gitdir))), gitdir);
}

/** What a log of the repository in `gitdir` answered. */
function commitsOf(result: GitResult, gitdir: string): CommitFacts {
  if (result.code !== 0) {
    // A repository without a single commit (an init that never finished) has nothing to log.
    if (/does not have any commits yet|bad default revision|unknown revision/.test(result.stderr)) {
      return { subjects: [], branches: [], count: 0, newestMs: null };
    }
    throw new Error(`git log in ${gitdir} failed (${result.code}): ${lastLine(result.stderr)}`);
  }
  return parseLog(result.stdout);
}

/** The log of the repository in `gitdir`, with `worktree` standing in for its work tree. */
function logOf(gitdir: string, worktree: string): string[] {
  return [
    '-c',
    'log.showSignature=false',
    '--git-dir',
    gitdir,
    // git checks that core.worktree's folder can be reached even for a log, and the workspace may be
    // long gone with its parents: the repository's own folder stands in (a log reads no worktree).
    '--work-tree',
    worktree,
    'log',
    '--all',
    '-z',
    '--no-color',
    '--decorate=full',
    `--format=%ct${FIELD}%D${FIELD}%s`,
  ];
}

function parseLog(stdout: string): CommitFacts {
  const subjects = new Set<string>();
  const branches = new Set<string>();
  let count = 0;
  let newestMs: number | null = null;
  for (const record of stdout.split('\0')) {
    if (record.trim() === '') continue;
    const [time, refs, ...rest] = record.replace(/^\n/, '').split(FIELD);
    count += 1;
    subjects.add(rest.join(FIELD));
    const ms = Number(time) * 1000;
    if (Number.isFinite(ms) && (newestMs === null || ms > newestMs)) newestMs = ms;
    for (const ref of refNames(refs ?? '')) branches.add(ref);
  }
  return { subjects: [...subjects].sort(), branches: [...branches].sort(), count, newestMs };
}

/** The ref names of a `%D` decoration: `HEAD -> refs/heads/main, refs/heads/task-1, tag: refs/tags/v1`. */
function refNames(decoration: string): string[] {
  const names: string[] = [];
  for (const part of decoration.split(', ')) {
    const name = part.replace(/^HEAD -> /, '').replace(/^tag: /, '');
    if (name === '' || name === 'HEAD') continue;
    names.push(name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : name);
  }
  return names;
}
