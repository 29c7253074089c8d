import type { Reason } from '../../model/types.js';
import { CLOCK_SKEW_TOLERANCE_MS, isBeyondClock } from '../../safety/clock.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { DaemonLiveness } from './daemon.js';
import type { HomeEvidence } from './homes.js';
import type { SessionLog } from './session-logs.js';
import { belongsToSlug, homeSlug, slug } from './slug.js';
import type { RegisteredProject, RunningAgent } from './state.js';

/** What one Watchfire root says, read once per pass and shared by all its homes. */
export interface WatchfireWorld {
  projects: readonly RegisteredProject[];
  /** The agents of `agents.yaml`, or null when there is no such file (a clean shutdown). */
  agents: readonly RunningAgent[] | null;
  daemon: DaemonLiveness;
  /** The session logs of each project, by project id. */
  sessionLogs: ReadonlyMap<string, readonly SessionLog[]>;
}

/**
 * Watchfire's rule for one session home. Pure: the evidence and the clock go in, the owner's
 * judgement comes out. Signs of life (processes, minAge) and the delete guards are the core's.
 */
export function judgeHome(home: HomeEvidence, world: WatchfireWorld, nowMs: number): OwnerJudgement {
  if (home.type === 'symlink') {
    return refused(
      'symlink',
      `${home.path} is a symlink, not a folder Watchfire made; neither it nor its target is touched`,
    );
  }
  const homeSlugValue = homeSlug(home.name);
  if (homeSlugValue === null) {
    return refused(
      'unrecognized-name',
      `${home.name} is not a Watchfire session name (slug:mode), so no project can be traced from it`,
    );
  }
  const shown = homeSlugValue === '' ? '(empty)' : homeSlugValue;

  // Slug-level on purpose: the backend and the wildfire phase of a running agent are not recorded.
  const projects = world.projects.filter((project) => belongsToSlug(home.name, slug(project.name)));
  const projectIds = new Set(projects.map((project) => project.projectId));
  const agents = (world.agents ?? []).filter(
    (agent) => projectIds.has(agent.projectId) || belongsToSlug(home.name, slug(agent.projectName)),
  );

  if (agents.length > 0 && world.daemon.live) {
    return {
      decision: 'kept',
      reason: 'session-running',
      detail: `${describeAgents(agents)} in agents.yaml share slug ${shown} and the daemon is live (${world.daemon.why})`,
    };
  }
  if (projects.length === 0) {
    return {
      decision: 'delete',
      reason: 'project-deleted',
      detail: `project slug ${shown} is in no entry of projects.yaml`,
    };
  }
  const names = describeProjects(projects);
  if (home.newestWriteMs === null) {
    return refused(
      'home-unreadable',
      `${home.path} of ${names} cannot be read through, so whether its transcript was exported is unknown: ${home.unreadable ?? 'unknown error'}`,
    );
  }
  const newest = home.newestWriteMs;
  const { proof, skewed } = exportProof(projects, world.sessionLogs, newest, nowMs);
  if (!proof && skewed) {
    return refused(
      'clock-skew',
      `session log ${skewed.file} says it ended ${iso(skewed.endedAtMs)}, more than ${CLOCK_SKEW_TOLERANCE_MS / 60_000} minutes ahead of this pass's clock (${iso(nowMs)}): a record from the future proves no export of ${home.path}`,
    );
  }
  if (proof) {
    return {
      decision: 'delete',
      reason: 'transcript-exported',
      detail: `session log ${proof.file} (status ${proof.status || 'unknown'}) ended ${iso(proof.endedAtMs)}, at or after the home's newest write ${iso(newest)}`,
    };
  }
  if (home.ownEntry === null) {
    return {
      decision: 'delete',
      reason: 'failed-start',
      detail: `the home of ${names} holds only what a Watchfire start installs (prompt, opencode.json, symlinks, empty folders)`,
    };
  }
  const age = describeAge(nowMs - newest);
  if (!world.daemon.live && world.agents !== null && agents.length > 0) {
    return {
      decision: 'unfinished',
      reason: 'session-interrupted',
      detail: `the daemon died (${world.daemon.why}) with ${describeAgents(agents)} still in agents.yaml; no session log ended after the home's newest write ${iso(newest)} (${age}), so ${home.ownEntry} may hold the only transcript`,
    };
  }
  return {
    decision: 'unfinished',
    reason: 'transcript-not-exported',
    detail: `no session log of ${names} ended at or after the home's newest write ${iso(newest)} (${age}), so ${home.ownEntry} may hold the only transcript`,
  };
}

/** Every candidate of a root whose `projects.yaml` (or `agents.yaml`) cannot be read. */
export function judgeUnreadableSource(home: { path: string }, error: string): OwnerJudgement {
  return refused('source-unreadable', `${home.path} is not judged: ${error}`);
}

/** A quarantine was proven dead when it was made (rule 11): finish it. */
export function judgeQuarantine(quarantine: string): OwnerJudgement {
  return {
    decision: 'delete',
    reason: 'quarantine-leftover',
    detail: `${quarantine} is a quarantine left by an interrupted deletion; it was proven dead before it was renamed`,
  };
}

/**
 * The session log that proves the home's transcript was exported: one that ended at or after the
 * home's newest write, and not beyond this pass's clock. A log that would prove it only from the
 * future is answered apart, so the judge can say why it is not believed.
 */
function exportProof(
  projects: readonly RegisteredProject[],
  logs: ReadonlyMap<string, readonly SessionLog[]>,
  newestWriteMs: number,
  nowMs: number,
): { proof: SessionLog | null; skewed: SessionLog | null } {
  let proof: SessionLog | null = null;
  let skewed: SessionLog | null = null;
  for (const project of projects) {
    for (const log of logs.get(project.projectId) ?? []) {
      if (log.endedAtMs < newestWriteMs) continue;
      if (isBeyondClock(log.endedAtMs, nowMs)) {
        if (!skewed || log.endedAtMs > skewed.endedAtMs) skewed = log;
      } else if (!proof || log.endedAtMs > proof.endedAtMs) proof = log;
    }
  }
  return { proof, skewed };
}

function refused(reason: Reason, detail: string): OwnerJudgement {
  return { decision: 'refused', reason, detail };
}

function describeProjects(projects: readonly RegisteredProject[]): string {
  const list = projects.map((project) => `${JSON.stringify(project.name)} (${project.projectId})`).join(', ');
  return projects.length === 1 ? `project ${list}` : `projects ${list}`;
}

function describeAgents(agents: readonly RunningAgent[]): string {
  const list = agents
    .map((agent) => `${JSON.stringify(agent.projectName)} (${agent.projectId}${agent.mode ? `, ${agent.mode}` : ''})`)
    .join(', ');
  return agents.length === 1 ? `the agent of project ${list}` : `the agents of projects ${list}`;
}

function describeAge(ms: number): string {
  if (ms < 0) return 'in the future by the clock of this pass';
  const hours = ms / 3_600_000;
  if (hours < 1) return `${Math.round(ms / 60_000)} min ago`;
  if (hours < 48) return `${Math.round(hours)} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
