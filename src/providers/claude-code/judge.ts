import type { OwnerJudgement } from '../../model/types.js';
import { PARENT_VARIABLE, SESSION_VARIABLE, type SessionFolder } from './layout.js';
import type { ConfigDir } from './registry.js';

/** What /proc says of a recorded process: running as recorded, gone (or another process now), or not to be told. */
export type Life = { state: 'live' } | { state: 'dead'; why: string } | { state: 'unknown'; why: string };

/** A registry record (`sessions/<pid>.json`), with the slugs of its cwd and whether its process runs. */
export interface JudgedRecord {
  file: string;
  pid: number;
  sessionId: string;
  cwd: string;
  /** The slug of each spelling of its cwd (the text, its canonical path): any of them is its project (rule 25). */
  slugs: string[];
  /** Why its cwd cannot be resolved: it may then be any project, and names every slug. */
  cwdUnknown?: string;
  life: Life;
}

/**
 * The config folder a running Claude Code works with: the one its `CLAUDE_CONFIG_DIR` names (in
 * this pass's view), `~/.claude` of its own home where it names none, or unknown.
 */
export type RunningConfig = { state: 'named'; dir: string } | { state: 'default' } | { state: 'unknown'; why: string };

/** A running Claude Code process of the uid (rule 27), with the slug of each spelling of its working directory. */
export interface RunningClaude {
  pid: number;
  /** `4242 (claude -p …, run by ana)`. */
  named: string;
  /** Its working directory as /proc shows it. */
  cwd: string;
  slugs: string[];
  config: RunningConfig;
}

/** An adopted shell (`jobs/*\/adopt.json`), with the session folder its output is in, if any. */
export interface JudgedShell {
  file: string;
  pid: number;
  command?: string;
  outputPath: string;
  folder: string | null;
  life: Life;
}

/** A process that carries `CLAUDE_CODE_SESSION_ID`, described, with the Claude Code that started it. */
export interface Carrier {
  pid: number;
  /** `4242 (bash -c …, run by root)`. */
  named: string;
  sessionId: string;
  parentPid: number | null;
  parentLife: Life;
}

/** A process of the root's uid whose environment cannot be read: what it carries is unknown. */
export interface Unseen {
  /** `process 4242`, or `any process` where none could be looked at. */
  who: string;
  why: string;
}

/** A `tasks/` entry that is a link, and the session folder under the same root it resolves into. */
export interface TaskLink {
  link: string;
  /** The session folder the link is in. */
  from: string;
  /** The session folder it points into. */
  into: string;
}

/** Everything about one uid's Claude Code that the rule reads, gathered before the judge runs. */
export interface ClaudeEvidence {
  /** Registry or adopt files that could not be read: nothing of the uid can be proven dead. */
  problems: string[];
  /** Every config folder of the uid whose registry was read (`~/.claude`, each `CLAUDE_CONFIG_DIR`). */
  configDirs: ConfigDir[];
  records: JudgedRecord[];
  shells: JudgedShell[];
  carriers: Carrier[];
  /** Claude Code processes of the uid: each keeps every session folder of its project, record or not. */
  running: RunningClaude[];
  unseen: Unseen[];
}

const NAMED = 3;

/**
 * The owner's judgement of every session folder of one root (this provider's README.md): each on its
 * own, then every folder a `tasks/` link of a folder that is not going leads into is kept with it,
 * until nothing changes ("move to background" makes a new session whose output links into the
 * old session's folder, where its shell goes on writing).
 */
export function judgeSessionFolders(
  folders: readonly SessionFolder[],
  links: readonly TaskLink[],
  evidence: ClaudeEvidence,
): Map<string, OwnerJudgement> {
  const verdicts = new Map(folders.map((folder) => [folder.path, judgeSessionFolder(folder, evidence)]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const link of links) {
      const from = verdicts.get(link.from);
      const into = verdicts.get(link.into);
      if (!from || !into || from.decision === 'delete' || into.decision !== 'delete') continue;
      verdicts.set(link.into, {
        decision: 'kept',
        reason: 'linked-from-live-session',
        detail: `${link.link} links into it, and its session folder ${link.from} stays (${from.reason})`,
      });
      changed = true;
    }
  }
  return verdicts;
}

/** One session folder (or an older version's `<slug>/tasks`), by the registry, the adopted shells and the processes. */
export function judgeSessionFolder(folder: SessionFolder, evidence: ClaudeEvidence): OwnerJudgement {
  const failed = unreadable(evidence);
  if (failed) return failed;
  const { sid, slug } = folder;
  const names = (record: JudgedRecord) => (sid !== null && record.sessionId === sid) || inProject(record, slug);
  const live = evidence.records.find((record) => record.life.state === 'live' && names(record));
  if (live)
    return {
      decision: 'kept',
      reason: 'session-live',
      detail: `Claude Code is running ${sid !== null && live.sessionId === sid ? `session ${sid}` : `in its project (${projectOf(live)})`}: ${describeRecord(live)}`,
    };
  const shell = evidence.shells.find((each) => each.life.state !== 'dead' && each.folder === folder.path);
  if (shell)
    return {
      decision: 'kept',
      reason: 'adopted-shell-live',
      detail: `the adopted shell ${shell.pid}${shell.command ? ` (${shell.command})` : ''} of ${shell.file} ${shell.life.state === 'live' ? 'is running' : `may be running (${shell.life.state === 'unknown' ? shell.life.why : ''})`} and writes ${shell.outputPath}`,
    };
  if (sid !== null) {
    const carried = judgeCarriers(sid, evidence);
    if (carried) return carried;
  }
  const unsure = runningOrUnknown(slug, evidence, names);
  if (unsure) return unsure;
  const unseen = evidence.unseen[0];
  if (sid !== null && unseen)
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether ${unseen.who} carries ${SESSION_VARIABLE}=${sid} is unknown: ${unseen.why}`,
    };
  return {
    decision: 'delete',
    reason: 'session-ended',
    detail: endedDetail(folder, evidence),
  };
}

/**
 * An empty slug folder goes unless a Claude Code runs in that project (it makes the folder again
 * when it starts a task), or one that might is in a registry this pass cannot check.
 */
export function judgeEmptySlugFolder(slug: string, evidence: ClaudeEvidence): OwnerJudgement {
  const failed = unreadable(evidence);
  if (failed) return failed;
  const names = (record: JudgedRecord) => inProject(record, slug);
  const live = evidence.records.find((record) => record.life.state === 'live' && names(record));
  if (live)
    return {
      decision: 'kept',
      reason: 'session-live',
      detail: `Claude Code is running in its project (${projectOf(live)}): ${describeRecord(live)}`,
    };
  const unsure = runningOrUnknown(slug, evidence, names);
  if (unsure) return unsure;
  return {
    decision: 'delete',
    reason: 'project-folder-empty',
    detail: `an empty project folder of Claude Code's task output, and no running Claude Code has its project${staleNote(evidence, names)}`,
  };
}

/** The judgement of a slug folder that goes with its last session folders (all of them dead). */
export function judgeSlugWithSessions(
  slug: string,
  sessions: ReadonlyArray<[SessionFolder, OwnerJudgement]>,
): OwnerJudgement {
  const ids = sessions.map(([folder]) => folder.sid ?? 'tasks');
  const shown = ids.slice(0, NAMED).join(', ') + (ids.length > NAMED ? ` and ${ids.length - NAMED} more` : '');
  const first = sessions[0]?.[1].detail ?? '';
  const last = ids.length === 1 ? 'its last session folder' : `its last ${ids.length} session folders (${shown})`;
  return {
    decision: 'delete',
    reason: 'session-ended',
    detail: `the project folder ${slug} goes with ${last}: ${first}`,
  };
}

/** The evidence with more that could not be read (folders of the root a listing could not open). */
export function withProblems(evidence: ClaudeEvidence, problems: readonly string[]): ClaudeEvidence {
  return problems.length === 0 ? evidence : { ...evidence, problems: [...evidence.problems, ...problems] };
}

export function unreadable(evidence: ClaudeEvidence): OwnerJudgement | null {
  if (evidence.problems.length === 0) return null;
  const more = evidence.problems.length > 1 ? ` (and ${evidence.problems.length - 1} more)` : '';
  return {
    decision: 'refused',
    reason: 'source-unreadable',
    detail: `Claude Code's registry of live sessions cannot be read, so no session can be proven dead: ${evidence.problems[0]}${more}`,
  };
}

/**
 * A running Claude Code whose working directory is the project keeps it, whatever the registries
 * say (rule 27); else a record whose process cannot be told alive or dead refuses it.
 */
function runningOrUnknown(
  slug: string,
  evidence: ClaudeEvidence,
  names: (record: JudgedRecord) => boolean,
): OwnerJudgement | null {
  const running = evidence.running.find((each) => each.slugs.includes(slug));
  if (running)
    return {
      decision: 'kept',
      reason: 'session-live',
      detail: `Claude Code is running in its project: process ${running.named} has its working directory in ${running.cwd}${running.slugs.length > 1 ? ` (the project ${slug} is one spelling of it)` : ''}, whatever the registries say`,
    };
  const unknown = evidence.records.find((record) => record.life.state === 'unknown' && names(record));
  if (unknown?.life.state === 'unknown')
    return {
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether the Claude Code of ${describeRecord(unknown)} runs cannot be told: ${unknown.life.why}`,
    };
  return null;
}

/** Whether a record's working directory is the project of `slug`, by any spelling of it (rule 25). */
const inProject = (record: JudgedRecord, slug: string): boolean =>
  record.cwdUnknown !== undefined || record.slugs.includes(slug);

/** The project a record names, and why it names every project where its cwd cannot be resolved. */
const projectOf = (record: JudgedRecord): string =>
  record.cwdUnknown === undefined
    ? record.cwd
    : `${record.cwd}, which cannot be resolved, so it may be any project: ${record.cwdUnknown}`;

/** A process carrying the session's id keeps it: while its Claude Code runs, or (refused in-use) once it has outlived it. */
export function judgeCarriers(sid: string, evidence: ClaudeEvidence): OwnerJudgement | null {
  const carriers = evidence.carriers.filter((carrier) => carrier.sessionId === sid);
  const attended = carriers.find((carrier) => carrier.parentLife.state !== 'dead');
  if (attended)
    return {
      decision: 'kept',
      reason: 'session-process-live',
      detail: `process ${attended.named} carries ${SESSION_VARIABLE}=${sid}, and its Claude Code (${PARENT_VARIABLE}=${attended.parentPid}) ${attended.parentLife.state === 'live' ? 'is running' : `may be running: ${attended.parentLife.state === 'unknown' ? attended.parentLife.why : ''}`}`,
    };
  const orphan = carriers[0];
  if (orphan) {
    const parent =
      orphan.parentPid === null
        ? `no ${PARENT_VARIABLE} names its Claude Code`
        : `its Claude Code (${PARENT_VARIABLE}=${orphan.parentPid}) is gone${orphan.parentLife.state === 'dead' ? ` (${orphan.parentLife.why})` : ''}`;
    const others = carriers.length > 1 ? ` (and ${carriers.length - 1} more processes of the session)` : '';
    return {
      decision: 'refused',
      reason: 'in-use',
      detail: `process ${orphan.named}${others} carries ${SESSION_VARIABLE}=${sid}, but ${parent}: a background shell that outlived its session and may still write here; stopping process ${orphan.pid} frees the space`,
    };
  }
  return null;
}

function endedDetail(folder: SessionFolder, evidence: ClaudeEvidence): string {
  const what = folder.sid === null ? 'the tasks of an older Claude Code' : `session ${folder.sid}`;
  const checks = [
    `no running Claude Code has ${folder.sid === null ? 'its project' : 'it or its project'} (${folder.slug}), by its record or its working directory`,
    'no adopted shell writes in it',
    ...(folder.sid === null ? [] : [`no process carries its ${SESSION_VARIABLE}`]),
  ];
  const stale = staleNote(evidence, (record) => record.sessionId === folder.sid || inProject(record, folder.slug));
  return `${what} has ended: ${checks.join(', ')}${stale}`;
}

function staleNote(evidence: ClaudeEvidence, names: (record: JudgedRecord) => boolean): string {
  const stale = evidence.records.filter((record) => record.life.state === 'dead' && names(record));
  if (stale.length === 0) return '';
  const first = stale[0] as JudgedRecord;
  const why = first.life.state === 'dead' ? first.life.why : '';
  return `; ${stale.length === 1 ? 'its registry record' : `${stale.length} registry records, the first`} ${first.file} is stale (${why})`;
}

export function describeRecord(record: JudgedRecord): string {
  return `${record.file} (pid ${record.pid}, session ${record.sessionId}, cwd ${record.cwd})`;
}
