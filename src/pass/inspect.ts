import path from 'node:path';
import { onOneFile, type Candidate } from '../provider-api/candidate.js';
import type { ProcessDescription } from '../safety/processes/process-description.js';
import { errorMessage } from '../model/errors.js';
import { inspectPath, type PathFacts } from '../safety/containment.js';
import { readdirNamesSync } from '../safety/fs/list.js';
import { realpathSync } from '../safety/fs/stat.js';
import { bindMountsOf } from '../safety/processes/bind-sources.js';
import { describeProcesses } from '../safety/processes/describe-processes.js';
import { gitProcessesInside } from '../safety/processes/git-processes.js';
import { pidsInside, union, type ProcessTable } from '../safety/processes/processes.js';
import { deleteIdentity, gitIdentityFor, worktreeRemovalBlocked } from '../safety/owners/owner.js';
import { measureTree, type TreeFacts } from '../safety/walk/walk.js';
import type { WalkWatch } from '../safety/walk/walk-watch.js';

/** The safety facts of one candidate's folder, gathered by the safety engine. */
export interface SafetyFacts {
  exists: boolean;
  isRealDirectory: boolean;
  contained: boolean;
  symlinkInPath: boolean;
  sameFilesystemAsParent: boolean;
  mountInside: boolean;
  bytes: number;
  /** Newest mtime (ms) of the folder and anything inside it, or null when the folder is gone. */
  newestWriteMs: number | null;
  /** Newest write of anything but a folder (the age of a half-deleted quarantine). */
  newestFileWriteMs: number | null;
  /** Pids with a working directory, root, open file or mapping inside (by path or by identity). */
  processesInside: number[];
  /** The first few of them, described for the refusal's detail. */
  holders?: ProcessDescription[];
  /** A `file` or `checkpoint` removal's target is a regular file (lstat). */
  isRegularFile?: boolean;
  /** For a `file` removal: the git processes at work in its repository, the first few described. */
  gitInRepository?: { repository: string; pids: number[]; holders: ProcessDescription[] };
  /** Mount namespaces that have it, or a folder inside it, mounted elsewhere: one sentence each. */
  mountedElsewhere?: string[];
  /** Why the walk could not finish (EACCES somewhere), if it could not. */
  walkError?: string;
  /** An entry listed inside and gone before it could be looked at, on the walk and on its re-walk. */
  vanished?: string;
  /**
   * Why the item cannot be deleted as one owner (rule 20): an entry of another uid, or one its
   * owner cannot read or remove, or a top folder that is not the home owner's nor root's.
   */
  foreign?: string;
}

/** How many of the processes inside an item its refusal names. */
const HOLDERS_NAMED = 3;

export interface InspectedFacts extends SafetyFacts {
  path: PathFacts;
}

/**
 * Gathers the safety facts of one candidate's folder: rule 2's path checks, one walk, the processes
 * inside (by path, and by identity through `watch`, which rode on the walk), and the mount
 * namespaces that have it mounted elsewhere.
 */
export function inspectCandidate(
  candidate: Candidate,
  processes: ProcessTable | null,
  measure: (root: string) => TreeFacts = measureTree,
  watch: WalkWatch | null = null,
): InspectedFacts | null {
  if (candidate.path === null) return null;
  const target = path.resolve(candidate.path);
  const pathFacts = inspectPath(candidate.root ?? path.dirname(target), target);
  const facts: InspectedFacts = {
    path: pathFacts,
    exists: pathFacts.exists,
    isRealDirectory: pathFacts.isRealDirectory,
    contained: pathFacts.contained,
    symlinkInPath: pathFacts.symlinkInPath,
    sameFilesystemAsParent: pathFacts.sameFilesystemAsParent,
    mountInside: false,
    bytes: 0,
    newestWriteMs: null,
    newestFileWriteMs: null,
    processesInside: [],
  };
  if (!pathFacts.exists) return facts;
  try {
    const tree = measure(target);
    facts.bytes = tree.bytes;
    facts.newestWriteMs = tree.newestWriteMs;
    facts.newestFileWriteMs = tree.newestFileWriteMs;
    facts.mountInside = tree.mountInside;
    if (tree.error) facts.walkError = tree.error;
    if (tree.vanished) facts.vanished = tree.vanished;
    if (tree.foreign) facts.foreign = tree.foreign;
  } catch (err) {
    facts.walkError = errorMessage(err);
  }
  for (const watched of candidate.alsoWatch ?? []) {
    try {
      const tree = measure(watched);
      if (facts.newestWriteMs === null || tree.newestWriteMs > facts.newestWriteMs)
        facts.newestWriteMs = tree.newestWriteMs;
      if (tree.error) facts.walkError ??= tree.error;
      if (tree.vanished) facts.vanished ??= tree.vanished;
      // A companion goes with the item (git removes a worktree's admin entry), as the same owner.
      if (tree.foreign) facts.foreign ??= tree.foreign;
      else if (tree.uid !== pathFacts.uid)
        facts.foreign ??= `${watched}, which goes with it, belongs to uid ${tree.uid}, not to the item's owner (uid ${pathFacts.uid})`;
    } catch {
      // A watched companion that is gone has no write to count.
    }
  }
  const home = candidate.homeOwner;
  if (home && pathFacts.uid !== home.uid && pathFacts.uid !== 0)
    facts.foreign = `${target} belongs to uid ${pathFacts.uid}, neither to the owner of its home (uid ${home.uid}) nor to root`;
  const deleter = pathFacts.parentUid < 0 ? null : deleterUid(pathFacts);
  if (deleter !== null && deleter !== 0 && deleter !== pathFacts.uid)
    facts.foreign ??= `${target} belongs to uid ${pathFacts.uid}, but would be deleted as uid ${deleter} (who may remove entries of the folder it is in), who could not remove what is in it`;
  // git removes a worktree as whom its status runs as (rule 20): as that owner, or not at all.
  const { removal } = candidate;
  const blocked =
    removal?.type === 'git-worktree'
      ? worktreeRemovalBlocked(removal.worktree, removal.adminDir, gitIdentityFor(removal.worktree, home))
      : null;
  if (blocked) facts.foreign ??= blocked;
  if (processes) {
    let canonical: string | null = null;
    try {
      canonical = realpathSync(target);
    } catch {
      // Gone or unreadable: the lexical path is then all there is to match.
    }
    facts.processesInside = union(pidsInside(processes, target, canonical), watch?.pidsInside(target) ?? []);
    // A git at work in a tree that would go whole keeps it, holding a file there or not (rule 26).
    if (!onOneFile(candidate.removal) && candidate.judgement.decision === 'delete') {
      const repository = candidate.kind === 'checkpoint-repo';
      const git = gitProcessesInside(processes.gitProcesses, target, { unresolvedCount: repository });
      facts.processesInside = union(facts.processesInside, git);
    }
    if (facts.processesInside.length > 0)
      facts.holders = describeProcesses(processes.procRoot, facts.processesInside.slice(0, HOLDERS_NAMED));
    facts.mountedElsewhere = bindMountsOf(processes.mounts, canonical ?? target);
    if (candidate.removal?.type === 'file' && candidate.removal.repository)
      facts.gitInRepository = gitAtWork(processes, candidate.removal.repository, watch);
  }
  if (onOneFile(candidate.removal)) facts.isRegularFile = pathFacts.isRegularFile;
  return facts;
}

/**
 * The git processes at work in a repository: naming or holding anything in it by path (its
 * working directory, an argument, GIT_DIR, a descriptor, a mapping), or holding an entry of it by
 * identity, where the pass walked it as a tree of its own (a process in another mount namespace, say).
 */
function gitAtWork(
  processes: ProcessTable,
  repository: string,
  watch: WalkWatch | null,
): NonNullable<SafetyFacts['gitInRepository']> {
  const git = new Set(processes.gitProcesses.map((each) => each.pid));
  const byIdentity = (watch?.pidsInside(path.resolve(repository)) ?? []).filter((pid) => git.has(pid));
  const pids = union(gitProcessesInside(processes.gitProcesses, repository), byIdentity);
  return { repository, pids, holders: describeProcesses(processes.procRoot, pids.slice(0, HOLDERS_NAMED)) };
}

/** The uid a delete of the folder runs as (src/safety/owners/owner.ts): the folder's parent's owner, when we are root. */
function deleterUid(facts: PathFacts): number {
  const identity = deleteIdentity(
    { uid: facts.parentUid, gid: facts.parentGid, mode: facts.parentMode },
    { uid: facts.uid, gid: facts.gid },
  );
  return identity?.uid ?? process.geteuid?.() ?? 0;
}

/**
 * Whether the folder holding `target` still lists its name. A candidate that lstat no longer finds
 * is gone only if its folder agrees: one still listed is a name that cannot be looked up, never an
 * item to pass over.
 */
export function stillListed(target: string): boolean {
  try {
    return readdirNamesSync(path.dirname(target)).includes(path.basename(target));
  } catch {
    return false;
  }
}
