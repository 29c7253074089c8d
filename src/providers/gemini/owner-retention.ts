import path from 'node:path';
import { errorMessage, RemovalStopped } from '../../model/errors.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { Candidate, Removal } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { lstatOrNull, lstatOrNullSync } from '../../safety/fs/stat.js';
import { placeInOurView } from '../../safety/identity/process-paths.js';
import { resolveRecorded } from '../../safety/identity/recorded.js';
import type { Identity } from '../../safety/identity/resolve.js';
import { basisOf, besideBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import { findQuarantines } from '../../safety/removal/quarantine.js';
import { union } from '../../safety/processes/processes.js';
import { geminiConfig } from './config.js';
import {
  companionDetail,
  judgeSession,
  retentionWords,
  type ProjectRetention,
  type SessionArtifact,
  type SessionFacts,
  type SessionOutcome,
} from './judge.js';
import { isGeminiProcess, type GeminiLocation } from './layout.js';
import { retentionRule, selectAcross, type ChatEntry, type SettingsLayer } from './retention.js';
import { geminiWorkingIn } from './running.js';
import { companionsOf, readChats, type ChatFile } from './sessions.js';
import { readSettings, SYSTEM_DEFAULTS_VARIABLE, SYSTEM_SETTINGS_VARIABLE, systemPaths } from './settings.js';

// Gemini CLI's own session retention, applied to every project (SYSTEMS.md 10.4).

/** The settings of one `~/.gemini` that every project of it shares: the user's, and the system's. */
export interface SharedSettings {
  user: SettingsLayer | null;
  /** Each system defaults file that may apply (none among them: a Gemini CLI may skip or not have it). */
  systemDefaults: SettingsLayer[];
  system: SettingsLayer[];
  problems: string[];
}

/**
 * The user's settings (`~/.gemini/settings.json`) and every system settings file a Gemini CLI of
 * this machine may read: `/etc/gemini-cli/`, and where `GEMINI_CLI_SYSTEM_SETTINGS_PATH` or
 * `GEMINI_CLI_SYSTEM_DEFAULTS_PATH` point, in the pass's environment or a running Gemini CLI's
 * (each resolved as that process sees it, rule 27).
 */
export async function sharedSettings(
  location: GeminiLocation,
  owner: Owner,
  ctx: GatherContext,
): Promise<SharedSettings> {
  const problems: string[] = [];
  const settingsFiles = new Set<string>();
  const defaultsFiles = new Set<string>();
  const add = (paths: { settings: string; defaults: string }) => {
    settingsFiles.add(paths.settings);
    defaultsFiles.add(paths.defaults);
  };
  add(systemPaths({}));
  add(systemPaths(ctx.env));
  for (const record of ctx.processes.records.values()) {
    if (!isGeminiProcess(record) || record.vars === null) continue;
    if (!record.vars[SYSTEM_SETTINGS_VARIABLE] && !record.vars[SYSTEM_DEFAULTS_VARIABLE]) continue;
    const named = systemPaths(record.vars);
    const here = (file: string): string | null => {
      const placed = placeInOurView(ctx.processes.procRoot, record.pid, file, record.cwd);
      if (placed.state === 'found') return placed.path;
      if (placed.state === 'unknown')
        problems.push(
          `the system settings of Gemini CLI process ${record.pid} (${file}) cannot be read: ${placed.why}`,
        );
      return null;
    };
    const settings = here(named.settings);
    const defaults = here(named.defaults);
    if (settings) settingsFiles.add(settings);
    if (defaults) defaultsFiles.add(defaults);
  }
  const layers = async (files: Set<string>): Promise<SettingsLayer[]> => {
    const found: SettingsLayer[] = [];
    for (const file of files) {
      const read = await readSettings(file, basisOf(file, ctx.homes));
      if ('layer' in read) found.push(read.layer);
      else if ('problem' in read) problems.push(read.problem);
    }
    return found;
  };
  const userRead = await readSettings(
    path.join(location.dir, 'settings.json'),
    besideBasis(location.basis, { path: location.dir, owner }),
  );
  if ('problem' in userRead) problems.push(userRead.problem);
  return {
    user: 'layer' in userRead ? userRead.layer : null,
    systemDefaults: await layers(defaultsFiles),
    system: await layers(settingsFiles),
    problems,
  };
}

/** What the retention makes of one project: its items, and the words its scratch item takes. */
export interface ProjectSessions {
  candidates: Candidate[];
  words: string;
}

/** One project's sessions by Gemini CLI's own retention: items when the config applies it, else words. */
export async function projectSessions(
  location: GeminiLocation,
  owner: Owner,
  tmp: string,
  roots: readonly string[],
  shared: SharedSettings,
  ctx: GatherContext,
): Promise<ProjectSessions> {
  const apply = geminiConfig(ctx.config).applyOwnerRetention;
  const nowMs = ctx.now.getTime();
  const candidates: Candidate[] = [];
  const place = projectPlace(roots, owner);
  const problems = [...shared.problems];
  const workspace: SettingsLayer[] = [];
  for (const root of place.found) {
    const read = await readSettings(path.join(root.path, '.gemini', 'settings.json'), {
      owner,
      of: `the owner of ${location.dir}`,
    });
    if ('layer' in read) workspace.push(read.layer);
    else if ('problem' in read) problems.push(read.problem);
  }
  const rules = readings(shared, workspace).map(retentionRule);
  const known = { apply, rules, rootProblem: place.problem, settingsProblem: problems[0] ?? null };
  const listed = await readChats(tmp, owner, nowMs);
  if ('problem' in listed)
    return { candidates, words: retentionWords({ ...known, gemini: null, orderUnknown: null }, [], listed.problem) };
  const readable = listed.files.filter((file) => 'info' in file.read);
  const entries: ChatEntry[] = readable.map((file) => ({ name: file.name, info: infoOf(file) }));
  const selected = selectAcross(entries, rules, nowMs);
  const future = readable.find((file) => (infoOf(file)?.lastUpdatedMs ?? 0) > nowMs + FUTURE_MARGIN_MS);
  const unread = listed.files.find((file) => !('info' in file.read));
  const project: ProjectRetention = {
    ...known,
    // Looked for only where the rule could remove something.
    gemini: selected.size > 0 || unread !== undefined ? runningIn(place.identities, ctx) : null,
    orderUnknown: future
      ? { reason: 'clock-skew', detail: `${future.path} is dated in the future` }
      : unread
        ? { reason: 'unreadable', detail: `${unread.path} cannot be read as a session` }
        : null,
  };
  const outcomes: SessionOutcome[] = [];
  for (const group of groupsOf(listed.files)) {
    // Only what the rule may remove is measured and looked at further.
    if (group.every((file) => 'info' in file.read && !selected.has(file.name))) {
      outcomes.push({ state: 'not-selected' });
      continue;
    }
    const facts = await sessionFacts(group, listed.files, tmp, selected, ctx);
    const outcome = judgeSession(facts, project, nowMs);
    outcomes.push(outcome);
    if (apply && outcome.state === 'judged')
      candidates.push(...sessionItems(facts, outcome.judgement, location, owner));
  }
  return { candidates, words: retentionWords(project, outcomes, null) };
}

const FUTURE_MARGIN_MS = 5 * 60_000;

const infoOf = (file: ChatFile) => ('info' in file.read ? file.read.info : null);

/** Each reading of the settings Gemini CLI may run with: with and without each file it may skip or not know. */
function readings(shared: SharedSettings, workspace: SettingsLayer[]): SettingsLayer[][] {
  const options = (found: SettingsLayer[]): Array<SettingsLayer | null> => [...found, null];
  const all: SettingsLayer[][] = [];
  for (const systemDefaults of options(shared.systemDefaults))
    for (const project of options(workspace))
      for (const system of options(shared.system))
        all.push(
          [systemDefaults, shared.user, project, system].filter((layer): layer is SettingsLayer => layer !== null),
        );
  return all;
}

/** Where the project is (its root, as `.project_root` and `projects.json` name it), by identity. */
function projectPlace(
  roots: readonly string[],
  owner: Owner,
): { found: Array<{ path: string }>; identities: Identity[]; problem: string | null } {
  if (roots.length === 0)
    return {
      found: [],
      identities: [],
      problem:
        'no record names the root of its project (no .project_root, no entry of projects.json), so its settings are unknown',
    };
  const found: Array<{ path: string }> = [];
  const identities: Identity[] = [];
  let problem: string | null = null;
  for (const root of roots) {
    const resolved = resolveRecorded(root, owner.uid);
    if (resolved.state === 'found') {
      found.push({ path: root });
      identities.push(resolved.chain[0] as Identity);
    } else
      problem ??=
        resolved.state === 'missing'
          ? `its project ${root} is missing (no proof it was deleted: a volume may be unmounted), so its settings are unknown`
          : `its project ${root} cannot be resolved (${resolved.why}), so its settings are unknown`;
  }
  return { found, identities, problem };
}

function runningIn(identities: readonly Identity[], ctx: GatherContext): string | null {
  for (const identity of identities) {
    const running = geminiWorkingIn(identity, ctx.processes);
    if (running) return running;
  }
  return null;
}

/** A session's chat files: all of one short id together, as the cleanup takes them. */
function groupsOf(files: readonly ChatFile[]): ChatFile[][] {
  const groups = new Map<string, ChatFile[]>();
  for (const file of files) {
    const key = file.shortId ?? `name:${file.name}`;
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  return [...groups.values()];
}

async function sessionFacts(
  group: readonly ChatFile[],
  all: readonly ChatFile[],
  tmp: string,
  selected: ReadonlyMap<string, string>,
  ctx: GatherContext,
): Promise<SessionFacts> {
  const ids = new Set(
    group.flatMap((file) => ('info' in file.read && file.read.companionId ? [file.read.companionId] : [])),
  );
  // A session id another group's file also carries stays with that one.
  const others = new Set(
    all
      .filter((file) => !group.includes(file))
      .flatMap((file) => ('info' in file.read && file.read.companionId ? [file.read.companionId] : [])),
  );
  const companionPaths: Array<{ path: string; kind: 'file' | 'folder' }> = [];
  let companionProblem: string | undefined;
  for (const id of ids) {
    if (others.has(id)) continue;
    const found = await companionsOf(tmp, id);
    companionPaths.push(
      ...found.files.map((at) => ({ path: at, kind: 'file' as const })),
      ...found.folders.map((at) => ({ path: at, kind: 'folder' as const })),
    );
    companionProblem ??= found.problem;
  }
  const paths = [...group.map((file) => file.path), ...companionPaths.map((each) => each.path)];
  ctx.measureAhead?.(paths);
  await ctx.whenMeasured?.(paths);
  const chats = await Promise.all(
    group.map(async (file) => ({
      ...(await artifact(file.path, 'file', ctx)),
      ...('info' in file.read ? {} : { problem: { reason: file.read.reason, detail: file.read.detail } }),
      lastUpdatedMs: infoOf(file)?.lastUpdatedMs ?? null,
      selected: (selected.get(file.name) as SessionFacts['chats'][number]['selected']) ?? null,
    })),
  );
  const companions = await Promise.all(companionPaths.map((each) => artifact(each.path, each.kind, ctx)));
  let pids: number[] = [];
  for (const at of paths) pids = union(pids, ctx.holdersOf(at) ?? []);
  const holders =
    pids.length === 0 ? null : nameProcesses(describeProcesses(ctx.processes.procRoot, pids.slice(0, 3)), pids.length);
  return { chats, companions, ...(companionProblem ? { companionProblem } : {}), holders };
}

/** One file or folder of a session, measured; a link, another user's entry or an unreadable part is its problem. */
async function artifact(at: string, kind: 'file' | 'folder', ctx: GatherContext): Promise<SessionArtifact> {
  const stats = await lstatOrNull(at).catch(() => null);
  const out: SessionArtifact = { path: at, kind, bytes: 0, newestWriteMs: null };
  if (stats === null) return { ...out, problem: { reason: 'unreadable', detail: `${at} cannot be looked at` } };
  if (stats.isSymbolicLink())
    return {
      ...out,
      problem: {
        reason: 'symlink',
        detail: `${at} is a link; a session goes only with its own files, and a link is never followed`,
      },
    };
  if (kind === 'file' ? !stats.isFile() : !stats.isDirectory())
    return { ...out, problem: { reason: 'symlink', detail: `${at} is not the ${kind} Gemini CLI makes there` } };
  try {
    const tree = ctx.measure(at);
    out.bytes = tree.bytes;
    out.newestWriteMs = tree.newestWriteMs;
    if (tree.foreign) out.problem = { reason: 'foreign-owner', detail: tree.foreign };
    else if (tree.error || tree.vanished)
      out.problem = { reason: 'unreadable', detail: `part of ${at} cannot be read: ${tree.error ?? tree.vanished}` };
    else if (tree.mountInside)
      out.problem = { reason: 'mount-inside', detail: `${at} has another filesystem mounted below it` };
  } catch (err) {
    out.problem = { reason: 'unreadable', detail: `${at} cannot be looked at: ${errorMessage(err)}` };
  }
  return out;
}

/**
 * The items of a judged session. A session proven dead goes whole: its chat files first (single
 * files, in the executor's first round), then, each under a guard that the chat files are gone,
 * its log, tool outputs and folders; every one aged by all of them. A refused session is reported by its chat files.
 */
function sessionItems(
  facts: SessionFacts,
  judgement: OwnerJudgement,
  location: GeminiLocation,
  owner: Owner,
): Candidate[] {
  const all = [...facts.chats, ...facts.companions].map((each) => each.path);
  const item = (at: string, detail: string, removal?: Removal): Candidate => ({
    provider: 'gemini',
    kind: 'owner-retention',
    path: at,
    root: location.dir,
    judgement: { ...judgement, detail },
    homeOwner: owner,
    alsoWatch: all.filter((other) => other !== at),
    ...(removal ? { removal } : {}),
  });
  const dead = judgement.decision === 'delete';
  const chatItems = facts.chats.map((chat) => item(chat.path, judgement.detail, dead ? { type: 'file' } : undefined));
  if (!dead) return chatItems;
  const first = facts.chats[0]?.path as string;
  const guard = sessionGone(facts.chats.map((chat) => chat.path));
  return [
    ...chatItems,
    ...facts.companions.map((companion) =>
      item(
        companion.path,
        companionDetail(first, judgement),
        companion.kind === 'file' ? { type: 'file', guard } : { type: 'tree', guard },
      ),
    ),
  ];
}

/**
 * Right before a companion goes: its session's chat files are gone. A chat file the last proof
 * kept (a Gemini CLI resumed the session, and wrote to it) keeps all of its session.
 */
function sessionGone(chats: readonly string[]): NonNullable<Extract<Removal, { type: 'tree' }>['guard']> {
  return {
    async recheck() {
      const left = chats.find((chat) => {
        try {
          return lstatOrNullSync(chat) !== null;
        } catch {
          // One that cannot be looked at may be there still.
          return true;
        }
      });
      if (left)
        throw new RemovalStopped(
          'refused',
          'session-file-remains',
          `its session's chat file ${left} is still there, so what goes with it stays`,
        );
      return undefined;
    },
  };
}

/**
 * The quarantines an interrupted pass left of a project's sessions (a tool outputs or session
 * folder, a subagents folder): proven dead when they were made, finished whatever the sources say
 * now (rule 11).
 */
export async function sessionQuarantines(tmp: string, location: GeminiLocation, owner: Owner): Promise<Candidate[]> {
  const found: Candidate[] = [];
  for (const dir of [tmp, path.join(tmp, 'chats'), path.join(tmp, 'tool-outputs')])
    for (const leftover of await findQuarantines(dir)) found.push(quarantine(leftover, location.dir, owner));
  return found;
}

function quarantine(leftover: string, root: string, owner: Owner): Candidate {
  return {
    provider: 'gemini',
    kind: 'quarantine',
    path: leftover,
    root,
    judgement: {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(leftover)} is a quarantine an earlier pass proved dead and did not finish deleting`,
    },
    homeOwner: owner,
  };
}
