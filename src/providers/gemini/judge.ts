import path from 'node:path';
import type { OwnerJudgement, Reason } from '../../model/types.js';
import type { GarbageRefusal } from '../../engines/git-garbage/reasons.js';
import type { ShadowConfig } from '../../engines/vscode-storage/git-config.js';
import { formatDuration } from '../../util/duration.js';
import { formatBytes } from '../../util/format.js';
import { TOOLS, toolLabel, type GeminiTool } from './layout.js';
import type { RetentionRule, Selected } from './retention.js';

/** What the provider read of one project's folders: `history/<name>` and `tmp/<name>`. */
export interface ProjectFacts {
  tool: GeminiTool | null;
  /** The folder name both share: a slug (`app`), or the sha256 of the project's path (older Gemini CLI, Qwen Code). */
  name: string;
  history: { path: string; bytes: number | null; garbageBytes: number } | null;
  tmp: { path: string; bytes: number | null } | null;
  /** The shadow repository's own config (`history/<name>/.gitconfig`), or why it cannot be read. */
  identity: ShadowConfig | { problem: string } | null;
  /** `history/<name>/.git` is a real folder. */
  gitdirIsFolder: boolean;
  /** The project's path, as `.project_root` records it (either folder's). */
  projectRoot: string | null;
  /** The paths `projects.json` maps to this name. */
  registered: string[];
  /** Whether the project's path exists, where one is known. */
  projectExists: 'yes' | 'no' | 'unknown' | null;
  /** Why `projects.json` cannot be read, when it cannot: everything of the folder is refused (rule 1). */
  sourceProblem?: string;
}

/**
 * A shadow repository is the tool's when its `.git` is a real folder and its own `.gitconfig`
 * gives the tool's identity (the tool runs git with that file as its global config).
 */
function isToolRepository(facts: ProjectFacts): boolean {
  const identity = facts.identity;
  if (!facts.gitdirIsFolder || identity === null || 'problem' in identity) return false;
  const tools = facts.tool ? [facts.tool] : (Object.keys(TOOLS) as GeminiTool[]);
  return tools.some(
    (tool) => identity.userName === TOOLS[tool].userName && identity.userEmail === TOOLS[tool].userEmail,
  );
}

/** Whether git's temporary files in the project's shadow repository may be judged, and why none may go now. */
export function geminiGarbageStand(
  facts: ProjectFacts,
): { recognised: false } | { recognised: true; refusal?: GarbageRefusal } {
  if (!isToolRepository(facts)) return { recognised: false };
  if (facts.sourceProblem)
    return {
      recognised: true,
      refusal: { decision: 'refused', reason: 'source-unreadable', detail: facts.sourceProblem },
    };
  return { recognised: true };
}

/**
 * The shadow repository `history/<name>`: reported with its size, never deleted. Nothing the tool
 * keeps proves a project dead (a missing project path may be an unmounted volume), and the tool
 * re-creates the repository of a project it opens again; its restore points name its commits.
 */
export function judgeHistory(facts: ProjectFacts): OwnerJudgement {
  if (facts.sourceProblem) return { decision: 'refused', reason: 'source-unreadable', detail: facts.sourceProblem };
  const whose = isToolRepository(facts)
    ? `${toolLabel(facts.tool)}'s checkpoint shadow repository`
    : `a folder in ${toolLabel(facts.tool)}'s history that is not one of its shadow repositories (${notTheTools(facts)})`;
  const tmp = facts.tmp ? `; its scratch ${facts.tmp.path} holds ${size(facts.tmp.bytes)}` : '';
  return {
    decision: 'kept',
    reason: 'project-history',
    detail: `${whose} of ${projectWords(facts)}${tmp}; reported, never deleted (only git's temporary files in it go)`,
  };
}

/**
 * The project's scratch `tmp/<name>` (chats, checkpoints, logs, tool output): conversation data,
 * reported, with what Gemini CLI's own session retention makes of its chats. Where sessions of it
 * are items of their own, the item names the folder in its detail and has no path, so that it
 * claims nothing they are in.
 */
export function judgeScratch(
  facts: ProjectFacts,
  retention: { words: string | null; pathless: boolean } = { words: null, pathless: false },
): OwnerJudgement {
  const where = retention.pathless && facts.tmp ? `${facts.tmp.path} (${size(facts.tmp.bytes)}): ` : '';
  if (facts.sourceProblem)
    return { decision: 'refused', reason: 'source-unreadable', detail: `${where}${facts.sourceProblem}` };
  const history = facts.history
    ? `; its shadow repository ${facts.history.path} holds ${size(facts.history.bytes === null ? null : facts.history.bytes - facts.history.garbageBytes)}`
    : '';
  const sessions = retention.words ? `; ${retention.words}` : '';
  return {
    decision: 'kept',
    reason: 'project-scratch',
    detail: `${where}${toolLabel(facts.tool)}'s scratch (chats, checkpoints, logs, tool output) of ${projectWords(facts)}${history}; conversation data, reported, never deleted as a whole${sessions}`,
  };
}

/** The project, whether its path exists (no proof either way), and its entry in the registry. */
function projectWords(facts: ProjectFacts): string {
  const known = facts.projectRoot ?? facts.registered[0] ?? null;
  const where =
    known === null
      ? `an unrecorded project (the folder ${facts.name} is ${/^[0-9a-f]{64}$/.test(facts.name) ? "named by the sha256 of the project's path" : 'named by no record'})`
      : `${known}, ${existence(facts.projectExists)}`;
  const registry =
    facts.tool === 'qwen'
      ? ''
      : facts.registered.length > 0
        ? `, registered in projects.json as ${facts.name}${facts.registered.length > 1 || (facts.projectRoot !== null && facts.registered[0] !== facts.projectRoot) ? ` for ${facts.registered.join(', ')}` : ''}`
        : ', in no entry of projects.json';
  return `${where}${registry}`;
}

function existence(state: ProjectFacts['projectExists']): string {
  if (state === 'yes') return 'which exists';
  if (state === 'no') return 'which is missing (no proof it was deleted: a volume may be unmounted)';
  return 'which cannot be looked at';
}

function notTheTools(facts: ProjectFacts): string {
  const identity = facts.identity;
  if (!facts.gitdirIsFolder) return 'its .git is not a folder';
  if (identity === null) return 'it has no .gitconfig';
  if ('problem' in identity) return `its .gitconfig cannot be read: ${identity.problem}`;
  return `its identity is ${identity.userName ?? '(no user.name)'} <${identity.userEmail ?? 'no user.email'}>`;
}

const size = (bytes: number | null): string => (bytes === null ? 'an unknown size' : formatBytes(bytes));

/** One file or folder of a session (its chat file, its log, its folders), as measured. */
export interface SessionArtifact {
  path: string;
  /** A single file (a chat, a log) or a folder, as Gemini CLI makes it there. */
  kind: 'file' | 'folder';
  bytes: number;
  newestWriteMs: number | null;
  /** Why it cannot go with the session (a link, another user's entry, a part that cannot be read). */
  problem?: { reason: Reason; detail: string };
}

/** What the provider read of one session: its chat files (all of one short id) and what goes with them. */
export interface SessionFacts {
  /** The session's name in the report: its first chat file. */
  chats: Array<SessionArtifact & { lastUpdatedMs: number | null; selected: Selected | null }>;
  companions: SessionArtifact[];
  /** Why what goes with it cannot all be known (its subagents' folder is a link, say). */
  companionProblem?: string;
  /** The processes that hold any of it open, named; null when none does. */
  holders: string | null;
}

/** What the provider read of the project a session is in, for Gemini CLI's own retention. */
export interface ProjectRetention {
  /** `providers.gemini.applyOwnerRetention`. */
  apply: boolean;
  /** The rule of every reading of the settings, the first being all of them at once. */
  rules: RetentionRule[];
  /** The running Gemini CLI that works in the project, named; null when none does. */
  gemini: string | null;
  /** Why the project's root (whose settings count) is not known or not there. */
  rootProblem: string | null;
  /** Why a settings file that counts cannot be read. */
  settingsProblem: string | null;
  /**
   * Why the order of the project's sessions by age is unknown (a chat file dated in the future, or
   * one that cannot be read): then none is judged by `maxCount`.
   */
  orderUnknown: { reason: Reason; detail: string } | null;
}

/** What becomes of a session: left (the rule does not select it), kept by minRetention, or judged. */
export type SessionOutcome =
  | { state: 'not-selected' }
  | { state: 'within-min-retention'; bytes: number }
  | { state: 'judged'; judgement: OwnerJudgement; bytes: number };

/**
 * One session by Gemini CLI's own retention, applied where Gemini CLI does not apply it (to every
 * project but the one it starts in). Dead only when every reading of the settings selects every
 * one of its chat files, its newest write or update is older than the largest `minRetention`, no
 * Gemini CLI works in the project, and nothing of it is held open or out of reach.
 */
export function judgeSession(session: SessionFacts, project: ProjectRetention, nowMs: number): SessionOutcome {
  const all = [...session.chats, ...session.companions];
  const bytes = all.reduce((sum, each) => sum + each.bytes, 0);
  const first = session.chats[0] as SessionFacts['chats'][number];
  // A reading under which the rule is off selects nothing, and every reading must select.
  if (!project.rules.every((rule) => rule.applies)) return { state: 'not-selected' };
  const unread = session.chats.find((chat) => chat.problem);
  if (unread?.problem) return { state: 'judged', judgement: refused(unread.problem), bytes };
  if (session.chats.some((chat) => chat.selected === null)) return { state: 'not-selected' };
  const minRetentionMs = Math.max(...project.rules.map((rule) => rule.minRetentionMs));
  const lastActive = Math.max(
    ...all.flatMap((each) => (each.newestWriteMs === null ? [] : [each.newestWriteMs])),
    ...session.chats.flatMap((chat) =>
      chat.lastUpdatedMs !== null && Number.isFinite(chat.lastUpdatedMs) ? [chat.lastUpdatedMs] : [],
    ),
  );
  if (nowMs - lastActive < minRetentionMs) return { state: 'within-min-retention', bytes };
  const whole = `${first.path}${wentWith(session)}`;
  const judged = (judgement: OwnerJudgement): SessionOutcome => ({ state: 'judged', judgement, bytes });
  if (project.gemini)
    return judged({
      decision: 'refused',
      reason: 'gemini-running',
      detail: `Gemini CLI is running in its project: ${project.gemini}; its session is never removed while it may be the one in use (${whole})`,
    });
  if (project.rootProblem) return judged(refused({ reason: 'project-root-missing', detail: project.rootProblem }));
  if (project.settingsProblem)
    return judged(
      refused({
        reason: 'source-unreadable',
        detail: `${project.settingsProblem}, so the session retention Gemini CLI would apply here is unknown`,
      }),
    );
  const byCount = session.chats.some((chat) => chat.selected === 'beyond-count');
  if (byCount && project.orderUnknown)
    return judged(
      refused({
        reason: project.orderUnknown.reason,
        detail: `${project.orderUnknown.detail}, so which sessions are the newest cannot be told`,
      }),
    );
  if (session.companionProblem)
    return judged(refused({ reason: 'unreadable', detail: `${session.companionProblem}: ${whole}` }));
  const blocked = all.find((each) => each.problem);
  if (blocked?.problem) return judged(refused(blocked.problem));
  if (session.holders)
    return judged({
      decision: 'refused',
      reason: 'in-use',
      detail: `${session.holders} ${session.holders.includes(',') ? 'have' : 'has'} part of it open (${whole})`,
    });
  const rule = project.rules[0] as RetentionRule & { applies: true };
  return judged({
    decision: 'delete',
    reason: 'gemini-session-expired',
    detail: `past Gemini CLI's own session retention (${rule.words}): ${selectedWords(first, nowMs, rule)}, and older than minRetention ${formatDuration(minRetentionMs)}; Gemini CLI applies it only to the project it starts in, and none runs in this one (${whole})`,
  });
}

/** The detail of what goes with a session's chat file, at its own item. */
export function companionDetail(chat: string, judgement: OwnerJudgement): string {
  return `goes with the session ${chat}, which Gemini CLI's own cleanup removes together: ${judgement.detail}`;
}

/** What the project's scratch item says of Gemini CLI's retention, from what became of its sessions. */
export function retentionWords(
  project: ProjectRetention,
  outcomes: readonly SessionOutcome[],
  problem: string | null,
): string {
  const rule = project.rules[0];
  if (problem) return `Gemini CLI's own session retention cannot be applied here: ${problem}`;
  // Off under one reading of the settings Gemini CLI may run with: it removes nothing for sure.
  const off = project.rules.find((each) => !each.applies);
  if (off && !off.applies) return `Gemini CLI's own session retention does not apply here: ${off.why}`;
  if (!rule?.applies) return "Gemini CLI's own session retention does not apply here";
  const judged = outcomes.filter((each) => each.state === 'judged');
  const dead = judged.filter((each) => each.judgement.decision === 'delete');
  const blocked = judged.filter((each) => each.judgement.decision !== 'delete');
  const young = outcomes.filter((each) => each.state === 'within-min-retention');
  const sum = (list: ReadonlyArray<{ bytes: number }>) =>
    formatBytes(list.reduce((total, each) => total + each.bytes, 0));
  const selected = dead.length + blocked.length + young.length;
  const sessions = `${outcomes.length} session${outcomes.length === 1 ? '' : 's'}`;
  const head = `Gemini CLI's own session retention (${rule.words}) selects ${selected} of its ${sessions}`;
  const parts: string[] = [];
  if (dead.length > 0)
    parts.push(
      project.apply
        ? `${dead.length} ${dead.length === 1 ? 'goes' : 'go'} (${sum(dead)} with their logs, tool outputs and folders), each an item of its own`
        : `${dead.length} would go (${sum(dead)} with their logs, tool outputs and folders): reported only, providers.gemini.applyOwnerRetention: true removes them in every project, as Gemini CLI does only in the one it starts in`,
    );
  if (blocked.length > 0)
    parts.push(
      `${blocked.length} ${stay(blocked.length)} (${[...new Set(blocked.map((each) => each.judgement.reason))].join(', ')})`,
    );
  if (young.length > 0) parts.push(`${young.length} younger than minRetention ${stay(young.length)} (${sum(young)})`);
  return parts.length === 0 ? head : `${head}: ${parts.join('; ')}`;
}

const stay = (count: number): string => (count === 1 ? 'stays' : 'stay');

function selectedWords(
  chat: SessionFacts['chats'][number],
  nowMs: number,
  rule: RetentionRule & { applies: true },
): string {
  if (chat.selected === 'empty')
    return 'its chat holds no session Gemini CLI can resume (empty, or unreadable to it), which its cleanup removes at any age';
  const updated = chat.lastUpdatedMs === null ? 'unknown' : new Date(chat.lastUpdatedMs).toISOString();
  if (chat.selected === 'beyond-count')
    return `last updated ${updated}, past the ${rule.maxCount} newest sessions of its project`;
  const days = Math.floor((nowMs - (chat.lastUpdatedMs ?? nowMs)) / 86_400_000);
  return `last updated ${updated}, ${days} day${days === 1 ? '' : 's'} ago, older than maxAge`;
}

function wentWith(session: SessionFacts): string {
  const others = [...session.chats.slice(1), ...session.companions];
  if (others.length === 0) return '';
  return ` with ${others.map((each) => path.relative(path.dirname(path.dirname(session.chats[0]?.path ?? '')), each.path)).join(', ')}`;
}

function refused(problem: { reason: Reason; detail: string }): OwnerJudgement {
  return { decision: 'refused', reason: problem.reason, detail: problem.detail };
}
