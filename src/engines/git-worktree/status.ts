import { availableParallelism } from 'node:os';
import { asError } from '../../model/errors.js';
import { git, runGit, type GitResult } from '../../git/git.js';
import { mapLimit } from '../../util/limit.js';
import { gitIdentityFor, type Owner } from '../../safety/owners/owner.js';

/** What is at stake in a worktree: tracked changes and untracked files, as `git status` says. */
export interface WorktreeChanges {
  changed: number;
  untracked: number;
  /** Files flagged assume-unchanged or skip-worktree that differ from the index: status does not show them. */
  flagged: number;
  /** A few of the paths, for the report's detail. */
  sample: string[];
}

/** A worktree's HEAD: the commit (null on an unborn branch) and the branch it is on (null when detached). */
export interface HeadState {
  commit: string | null;
  /** Full ref name, `refs/heads/<name>`. */
  branch: string | null;
}

export interface WorktreeStatus {
  changes: WorktreeChanges;
  head: HeadState;
}

/**
 * One `git status --porcelain=v2 --branch` answers both what is at stake and where HEAD is, so a
 * worktree costs one git process. Every untracked file counts (ignored ones do not), submodules
 * are not ignored; GIT_OPTIONAL_LOCKS=0 (src/git/git.ts) keeps status from refreshing the index,
 * so an agent's index.lock is never taken or raced. Ahead/behind and renames are not asked for:
 * neither changes what is at stake, and both cost a walk.
 */
export async function readWorktreeStatus(worktree: string, homeOwner?: Owner): Promise<WorktreeStatus> {
  return parseStatus(
    await git([WORK_TREE_HERE, ...STATUS], { cwd: worktree, owner: gitIdentityFor(worktree, homeOwner) }),
    worktree,
  );
}

/**
 * The folder git is run in is the work tree it reports on: a `core.worktree` in the worktree's
 * config (its config.worktree, say) would point a plain status at another folder, clean, while
 * `git worktree remove` looks at this one.
 */
const WORK_TREE_HERE = '--work-tree=.';

const STATUS = [
  'status',
  '--porcelain=v2',
  '--branch',
  '--no-ahead-behind',
  '--no-renames',
  '-z',
  '--untracked-files=all',
  '--ignore-submodules=none',
];
const REPOSITORIES_KEY = 'agent-janitor.worktree';
const HEADER = '# branch.oid ';

/**
 * The statuses of many worktrees from a few `git for-each-repo` processes, each running `git status`
 * in its share of the worktrees one after another. Starting a child from this process costs several
 * times what git's own fork costs (the whole heap's page tables are copied), so git starts them.
 * Every status begins with its `# branch.oid` header, which no file record can begin with. The
 * command stops at the first status that fails, and that status may have printed part of its
 * answer: so after a failure only the answers before the last header are trusted, and the rest are
 * asked one at a time.
 * Where there are at least as many batches as CPUs, each status reads its index's stat data on one
 * thread: the batches already keep every CPU busy, and git's preload threads (one per 500 entries)
 * would only take turns with them.
 */
export async function readWorktreeStatuses(
  worktrees: readonly string[],
  streams: number,
  cpus = availableParallelism(),
  homeOwnerOf: (worktree: string) => Owner | undefined = () => undefined,
): Promise<Array<WorktreeStatus | Error>> {
  const size = Math.max(1, Math.ceil(worktrees.length / Math.max(1, streams)));
  // A batch runs as one user: the worktrees are batched by owner, in their order.
  const batches: Array<{ owner: Owner | null; worktrees: string[]; at: number[] }> = [];
  const byOwner = new Map<string, (typeof batches)[number]>();
  worktrees.forEach((worktree, at) => {
    const owner = gitIdentityFor(worktree, homeOwnerOf(worktree));
    const key = owner ? `${owner.uid}:${owner.gid}` : 'self';
    let batch = byOwner.get(key);
    if (!batch || batch.worktrees.length >= size) {
      batch = { owner, worktrees: [], at: [] };
      batches.push(batch);
      byOwner.set(key, batch);
    }
    batch.worktrees.push(worktree);
    batch.at.push(at);
  });
  const settings = batches.length >= cpus ? ['-c', 'core.preloadIndex=false'] : [];
  const answers = new Array<WorktreeStatus | Error>(worktrees.length);
  // As many at once as there are streams, even when owners make more batches than that.
  await mapLimit(batches, Math.max(1, streams), async ({ owner, worktrees: batch, at }) => {
    const trusted = await batchStatuses(batch, settings, owner);
    const results: Array<WorktreeStatus | Error> = [...trusted];
    for (const worktree of batch.slice(trusted.length)) {
      try {
        results.push(await readWorktreeStatus(worktree, homeOwnerOf(worktree)));
      } catch (err) {
        results.push(asError(err));
      }
    }
    results.forEach((result, k) => {
      answers[at[k] as number] = result;
    });
  });
  return answers;
}

/** The answers of one `git for-each-repo` that can be trusted, in order: none where it could not run. */
async function batchStatuses(
  batch: readonly string[],
  settings: readonly string[],
  owner: Owner | null,
): Promise<WorktreeStatus[]> {
  // Absolute paths only: for-each-repo expands a leading `~` or `%(prefix)`.
  if (!batch.every((worktree) => worktree.startsWith('/'))) return [];
  let result: GitResult;
  try {
    result = await runGit(
      [
        ...batch.flatMap((worktree) => ['-c', `${REPOSITORIES_KEY}=${worktree}`]),
        ...settings,
        'for-each-repo',
        `--config=${REPOSITORIES_KEY}`,
        '--',
        WORK_TREE_HERE,
        ...STATUS,
      ],
      // Each status prints as it ends, so git's limit on silence (src/git/runner.ts) holds per worktree.
      { owner },
    );
  } catch {
    return [];
  }
  const outputs = splitStatuses(result.stdout);
  const trusted =
    result.code === 0 && outputs.length === batch.length ? outputs.length : Math.min(outputs.length - 1, batch.length);
  const statuses: WorktreeStatus[] = [];
  for (let k = 0; k < trusted; k += 1) {
    try {
      statuses.push(parseStatus(outputs[k] as string, batch[k] as string));
    } catch {
      break;
    }
  }
  return statuses;
}

/** Cuts the output of many `git status -z --porcelain=v2 --branch` runs at each one's first header. */
function splitStatuses(out: string): string[] {
  const records = out.split('\0');
  const outputs: string[][] = [];
  for (const record of records) {
    if (record.startsWith(HEADER)) outputs.push([]);
    if (outputs.length === 0) continue;
    (outputs[outputs.length - 1] as string[]).push(record);
  }
  return outputs.map((parts) => parts.join('\0'));
}

// Fields before the path in each porcelain v2 record type.
const FIELDS_BEFORE_PATH: Record<string, number> = { '1': 8, '2': 9, u: 10, '?': 1 };

export function parseStatus(out: string, worktree: string): WorktreeStatus {
  const changes: WorktreeChanges = { changed: 0, untracked: 0, flagged: 0, sample: [] };
  let commit: string | null | undefined;
  let branch: string | null | undefined;
  const records = out.split('\0');
  for (let k = 0; k < records.length; k += 1) {
    const record = records[k] as string;
    if (record === '') continue;
    if (record.startsWith('# ')) {
      const [, key, value = ''] = record.split(' ');
      if (key === 'branch.oid') commit = value === '(initial)' ? null : value;
      if (key === 'branch.head') branch = value === '(detached)' ? null : `refs/heads/${value}`;
      continue;
    }
    const type = record[0] as string;
    const fields = FIELDS_BEFORE_PATH[type];
    if (fields === undefined)
      throw new Error(
        `git status in ${worktree} printed a record this version does not know: ${JSON.stringify(record.slice(0, 40))}`,
      );
    if (type === '?') changes.untracked += 1;
    else changes.changed += 1;
    // A rename record is followed by one holding the original path (not asked for, but never miscounted).
    if (type === '2') k += 1;
    if (changes.sample.length < 3) changes.sample.push(record.split(' ').slice(fields).join(' '));
  }
  if (commit === undefined || branch === undefined)
    throw new Error(`git status in ${worktree} did not say where HEAD is`);
  if (commit !== null && !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit))
    throw new Error(`git status in ${worktree} named HEAD ${JSON.stringify(commit)}, which is no object id`);
  return { changes, head: { commit, branch } };
}
