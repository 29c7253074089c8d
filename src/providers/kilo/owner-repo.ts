import { constants } from '../../safety/fs/descriptors.js';
import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { IncompleteAnswer, lastLine, runGit } from '../../git/git.js';
import { lstatOrNull, realpath, type Stats } from '../../safety/fs/stat.js';
import { readFileOrNull } from '../../safety/fs/read.js';
import { isPlainObject } from '../../util/plain-object.js';

/** What an owner repository R says of its worktrees, read without writing anything to it. */
export interface OwnerRepoFacts {
  path: string;
  state: 'ok' | 'missing' | 'not-a-repo' | 'unreadable';
  /** Why the state is not ok. */
  problem?: string;
  /** git said it could not read part of R (its refs, its worktrees' entries): rule 22. */
  unreadableContent?: boolean;
  canonical: string | null;
  /** The worktree paths `git worktree list --porcelain` names, prunable ones included. */
  gitWorktrees: Set<string>;
  /** The Agent Manager's state files, and the worktree paths they list (resolved against R). */
  agentManager: { files: string[]; worktrees: Set<string>; problem?: string };
  /** refs/kilo/materialize/* → the object each one pins. */
  pins: Map<string, string>;
  /**
   * R and its `.git` as they were when git found R to be the root of a repository, so that a
   * later look can tell they are still the very same entries.
   */
  identity?: { repo: EntryId; dotGit: EntryId };
}

/** An entry's device and inode, and its kind of file. */
interface EntryId {
  dev: number;
  ino: number;
  kind: number;
}

const entryId = (stats: Stats): EntryId => ({ dev: stats.dev, ino: stats.ino, kind: stats.mode & constants.S_IFMT });
const sameEntry = (stats: Stats | null, known: EntryId): boolean =>
  stats !== null &&
  stats.dev === known.dev &&
  stats.ino === known.ino &&
  (stats.mode & constants.S_IFMT) === known.kind;

// The Agent Manager keeps its state in `.kilo/agent-manager.json`; older versions used `.kilocode`.
const AGENT_MANAGER_FILES = ['.kilo/agent-manager.json', '.kilocode/agent-manager.json'];

/** Reads R once per pass; many checkpoint repositories share an owner. */
export class OwnerRepos {
  private readonly cache = new Map<string, Promise<OwnerRepoFacts>>();

  get(repo: string): Promise<OwnerRepoFacts> {
    const key = path.resolve(repo);
    let facts = this.cache.get(key);
    if (!facts) {
      facts = inspectOwnerRepo(key);
      this.cache.set(key, facts);
    }
    return facts;
  }
}

export async function inspectOwnerRepo(repo: string): Promise<OwnerRepoFacts> {
  const facts: OwnerRepoFacts = {
    path: repo,
    state: 'ok',
    canonical: null,
    gitWorktrees: new Set(),
    agentManager: { files: [], worktrees: new Set() },
    pins: new Map(),
  };
  try {
    const root = await lstatOrNull(repo);
    if (!root) return { ...facts, state: 'missing', problem: `${repo} does not exist` };
    // Looked at before git is asked: if either changes after, a later look sees another entry.
    const dotGit = await lstatOrNull(path.join(repo, '.git'));
    facts.canonical = await realpath(repo);
    const top = await runGit(['-C', repo, 'rev-parse', '--show-toplevel']);
    if (top.code !== 0)
      return { ...facts, state: 'not-a-repo', problem: `${repo} is not a git repository: ${lastLine(top.stderr)}` };
    const toplevel = top.stdout.trim();
    if ((await realpath(toplevel)) !== facts.canonical) {
      return {
        ...facts,
        state: 'not-a-repo',
        problem: `${repo} is not the root of a git repository (git finds ${toplevel})`,
      };
    }
    if (dotGit) facts.identity = { repo: entryId(root), dotGit: entryId(dotGit) };
    const listed = await listWorktrees(repo, facts.gitWorktrees);
    if (listed) return { ...facts, state: 'unreadable', problem: listed };
    const refs = await runGit([
      '-C',
      repo,
      'for-each-ref',
      '--format=%(objectname) %(refname)',
      'refs/kilo/materialize/',
    ]);
    if (refs.code !== 0)
      return { ...facts, state: 'unreadable', problem: `git for-each-ref failed in ${repo}: ${lastLine(refs.stderr)}` };
    for (const line of refs.stdout.split('\n')) {
      const [oid, ref] = line.split(' ');
      if (oid && ref) facts.pins.set(ref, oid);
    }
  } catch (err) {
    return {
      ...facts,
      state: 'unreadable',
      problem: `${repo} cannot be read: ${errorMessage(err)}`,
      ...incomplete(err),
    };
  }
  await readAgentManager(repo, facts);
  return facts;
}

/**
 * R again, under the lock of one of its checkpoint repositories, with one git process instead of
 * three. When R and its `.git` are still the very entries in which git found the root of a
 * repository (same device, inode and kind, same canonical path), only what can bring a worktree
 * back is read again: `git worktree list` and the Agent Manager's files. The pins stay as the pass
 * read them: a pin changes only under its repository's lock, and dropping one is a compare-and-swap
 * at the value read. Anything else reads R again from the start.
 */
export async function recheckOwnerRepo(known: OwnerRepoFacts): Promise<OwnerRepoFacts> {
  const identity = known.identity;
  if (known.state !== 'ok' || !identity) return inspectOwnerRepo(known.path);
  try {
    const root = await lstatOrNull(known.path);
    const dotGit = await lstatOrNull(path.join(known.path, '.git'));
    if (
      !sameEntry(root, identity.repo) ||
      !sameEntry(dotGit, identity.dotGit) ||
      (await realpath(known.path)) !== known.canonical
    ) {
      return inspectOwnerRepo(known.path);
    }
  } catch {
    return inspectOwnerRepo(known.path);
  }
  const facts: OwnerRepoFacts = {
    ...known,
    gitWorktrees: new Set(),
    agentManager: { files: [], worktrees: new Set() },
  };
  try {
    const listed = await listWorktrees(known.path, facts.gitWorktrees);
    if (listed) return { ...facts, state: 'unreadable', problem: listed };
  } catch (err) {
    return {
      ...facts,
      state: 'unreadable',
      problem: `${known.path} cannot be read: ${errorMessage(err)}`,
      ...incomplete(err),
    };
  }
  await readAgentManager(known.path, facts);
  return facts;
}

const incomplete = (err: unknown) => (err instanceof IncompleteAnswer ? { unreadableContent: true } : {});

/** Adds the paths `git worktree list --porcelain -z` names (prunable ones too); answers a problem, or null. */
async function listWorktrees(repo: string, into: Set<string>): Promise<string | null> {
  // -z: each path as its bytes, never quoted (a newline or a byte that is not UTF-8 in a path).
  const listed = await runGit(['-C', repo, 'worktree', 'list', '--porcelain', '-z']);
  if (listed.code !== 0) return `git worktree list failed in ${repo}: ${lastLine(listed.stderr)}`;
  for (const line of listed.stdout.split('\0')) {
    if (line.startsWith('worktree ')) into.add(path.resolve(line.slice('worktree '.length)));
  }
  return null;
}

async function readAgentManager(repo: string, facts: OwnerRepoFacts): Promise<void> {
  for (const relative of AGENT_MANAGER_FILES) {
    const file = path.join(repo, relative);
    let text: string | null;
    try {
      text = await readFileOrNull(file);
    } catch (err) {
      facts.agentManager.problem ??= `${file} cannot be read: ${errorMessage(err)}`;
      continue;
    }
    if (text === null) continue;
    facts.agentManager.files.push(file);
    try {
      for (const listed of agentManagerWorktrees(text)) facts.agentManager.worktrees.add(path.resolve(repo, listed));
    } catch (err) {
      facts.agentManager.problem ??= `${file} is not the Agent Manager's state file: ${errorMessage(err)}`;
    }
  }
}

/** The `path` of every entry of `worktrees: {<id>: {branch, path, parentBranch, createdAt}}`. */
function agentManagerWorktrees(text: string): string[] {
  const data: unknown = JSON.parse(text);
  if (!isPlainObject(data)) throw new Error('not a JSON object');
  const { worktrees } = data;
  if (worktrees === undefined) return [];
  if (!isPlainObject(worktrees)) throw new Error('worktrees is not an object');
  const paths: string[] = [];
  for (const [id, entry] of Object.entries(worktrees)) {
    const listed = isPlainObject(entry) ? entry.path : undefined;
    if (typeof listed !== 'string' || listed === '') throw new Error(`worktrees.${id}.path is not a path`);
    paths.push(listed);
  }
  return paths;
}
