import path from 'node:path';
import type {
  Anchor,
  BuiltInSet,
  KeepContext,
  SetContext,
  StateFolders,
  WorktreeKeeper,
} from '../../provider-api/provider.js';
import { realpathSync } from '../../safety/fs/stat.js';
import { identityOf, liesIn, resolveRecorded } from '../../safety/identity/recorded.js';
import type { Resolution } from '../../safety/identity/resolve.js';
import { locate } from '../../safety/owners/locations.js';
import { ownedBy } from '../../safety/owners/owned-by.js';
import { foundCopilotHomes } from './homes.js';
import { judgeKeep, type SessionInside } from './judge.js';
import { copilotHomes, PR_WORKTREES_SUFFIX, sessionStateFolder } from './layout.js';
import { livenessOf } from './liveness.js';
import { readSessionState } from './sessions.js';

/**
 * The worktrees Copilot CLI makes for a pull request (1.0.60, "Creating worktree for PR #N"):
 * `<main worktree>.worktrees/<branch with / as ->`, then a session working there; nothing of
 * Copilot's removes them. Judged by the worktrees provider with the rule of every set, and kept
 * while a session working in one has a live in-use lock. A week, as a review may take.
 */
export const COPILOT_SETS: readonly BuiltInSet[] = [
  {
    name: 'copilot',
    tool: 'Copilot CLI',
    roots: ['{copilot-pr-worktrees}'],
    idleAfter: '7d',
    keeps: copilotKeeps,
  },
];

/** `{copilot-pr-worktrees}`: the `<repo>.worktrees` folders of the repositories Copilot's sessions worked in. */
export const COPILOT_ANCHORS: readonly Anchor[] = [{ name: 'copilot-pr-worktrees', fromState: prWorktreeFolders }];

/**
 * Every `<main worktree>.worktrees` folder the sessions of every home name: beside each session's
 * `git_root` (the main worktree a pull request's worktree is made from), and the folder a
 * session's `git_root` lies in where that is one (a session in a pull request's worktree). Only
 * folders the home's owner owns are answered.
 */
async function prWorktreeFolders(ctx: SetContext): Promise<StateFolders> {
  const found: StateFolders = { repos: [], problems: [] };
  const seen = new Set<string>();
  for (const home of copilotHomes(ctx)) {
    const state = readSessionState(home);
    if (state.state === 'unreadable') found.problems.push({ file: sessionStateFolder(home.dir), error: state.detail });
    if (state.state !== 'read') continue;
    for (const session of state.sessions) {
      const workspace = session.workspace;
      if (workspace === null || 'problem' in workspace || workspace.gitRoot === null) continue;
      if (!path.isAbsolute(workspace.gitRoot)) continue;
      const gitRoot = path.resolve(workspace.gitRoot);
      const folders = [`${gitRoot}${PR_WORKTREES_SUFFIX}`];
      if (path.basename(path.dirname(gitRoot)).endsWith(PR_WORKTREES_SUFFIX)) folders.push(path.dirname(gitRoot));
      for (const named of folders) {
        // One folder however the sessions spelled it; only a folder of the home's owner is a root.
        const folder = canonicalOrNull(named);
        if (folder === null || seen.has(folder) || !(await ownedBy(folder, state.owner.uid))) continue;
        seen.add(folder);
        found.repos.push({ path: folder, basis: home.basis });
      }
    }
  }
  found.repos.sort((a, b) => a.path.localeCompare(b.path));
  return found;
}

/** A live session, with its recorded cwd resolved on this machine. */
interface LiveSession extends SessionInside {
  resolution: Resolution;
  ownerUid: number;
}

/**
 * The `copilot` set's keep condition, read from every Copilot home the pass finds (those a live
 * process names included, rule 27): the sessions with a live in-use lock, each with its
 * workspace.yaml `cwd` resolved (rule 25); and the homes of each uid that cannot be read.
 */
async function copilotKeeps(ctx: KeepContext): Promise<WorktreeKeeper> {
  const live: LiveSession[] = [];
  const unreadable: Array<{ ownerUid: number | null; why: string }> = [];
  for (const home of foundCopilotHomes(ctx)) {
    if (home.unreachable) {
      unreadable.push({ ownerUid: home.ownerUid, why: home.unreachable });
      continue;
    }
    const located = locate(home.dir, home.basis);
    if (located.state === 'absent') continue;
    if (located.state !== 'found') {
      unreadable.push({ ownerUid: home.ownerUid, why: `the Copilot CLI home cannot be read: ${located.detail}` });
      continue;
    }
    const state = readSessionState(home);
    if (state.state === 'unreadable')
      unreadable.push({ ownerUid: home.ownerUid, why: `its sessions cannot be read: ${state.detail}` });
    if (state.state !== 'read') continue;
    for (const session of state.sessions) {
      const holder = session.lockPids
        .map((pid) => ({ pid, liveness: livenessOf(ctx.processes, pid) }))
        .find((lock) => lock.liveness.state !== 'dead');
      if (!holder) continue;
      const holds =
        holder.liveness.state === 'alive'
          ? `${holder.liveness.process}, which is alive`
          : `process ${holder.pid}, which may be alive (${holder.liveness.state === 'unknown' ? holder.liveness.why : ''})`;
      const workspace = session.workspace;
      const cwd = workspace !== null && !('problem' in workspace) ? workspace.cwd : null;
      const resolution: Resolution =
        cwd !== null
          ? resolveRecorded(cwd, state.owner.uid)
          : {
              state: 'unknown',
              why: workspace !== null && 'problem' in workspace ? workspace.problem : `${session.folder} names no cwd`,
            };
      live.push({
        id: session.id,
        holder: holds,
        cwd,
        resolution,
        ownerUid: state.owner.uid,
        ...(resolution.state === 'unknown' ? { unresolved: resolution.why } : {}),
        ...(holder.liveness.state === 'unknown' ? { livenessUnknown: holder.liveness.why } : {}),
      });
    }
  }
  return (worktree, owner) => {
    const folder = identityOf(worktree);
    const inside = live.filter((session) =>
      // What cannot be told keeps the worktrees of its own user (rule 25).
      session.resolution.state === 'unknown' || folder === null
        ? session.ownerUid === owner.uid
        : liesIn(folder, session.resolution),
    );
    const problems = unreadable
      .filter((home) => home.ownerUid === null || home.ownerUid === owner.uid)
      .map((home) => home.why);
    return judgeKeep(inside, problems);
  };
}

function canonicalOrNull(folder: string): string | null {
  try {
    return realpathSync(folder);
  } catch {
    return null;
  }
}
