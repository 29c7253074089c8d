import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { RootStatus } from '../../model/types.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import { readdirOrEmpty, type Dirent } from '../../safety/fs/list.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import { findQuarantines, quarantinedName } from '../../safety/removal/quarantine.js';
import { durationMs } from '../../util/duration.js';
import { gooseConfig } from './config.js';
import { judgeDateFolder, judgeFlatFile, judgeOtherEntry, judgeSessions, type Writer } from './judge.js';
import {
  COMPONENTS,
  DATE_FOLDER,
  gooseLocations,
  gooseProgram,
  LOG_FILE,
  logsDir,
  sessionsDir,
  type GooseFolder,
} from './layout.js';

/** Goose's logs: date folders past its own 14-day rule go; flat files and sessions are reported. */
export const gooseGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => {
    const section = gooseConfig(config);
    return section.stateDir === undefined && section.dataDir === undefined;
  },
  async claimedAreas(ctx) {
    const { states, datas } = gooseLocations(ctx);
    return [
      ...states.map((state) => ({ owner: 'goose', folder: path.join(state.dir, 'logs') })),
      ...datas.map((data) => ({ owner: 'goose', folder: sessionsDir(data.dir) })),
    ];
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const out: Gathering = { roots: [], candidates: [] };
    const { states, datas } = gooseLocations(ctx);
    for (const state of states) await gatherFolder(state, out, (owner) => gatherLogs(state.dir, owner, ctx));
    for (const data of datas) await gatherFolder(data, out, (owner) => gatherSessions(data.dir, owner, ctx));
    return out;
  },
};

/** One of Goose's folders: skipped where Goose is not installed, `ok: false` where it cannot be read. */
async function gatherFolder(
  folder: GooseFolder,
  out: Gathering,
  gather: (owner: Owner) => Promise<Candidate[]>,
): Promise<void> {
  const found = locate(folder.dir, folder.basis);
  if (found.state === 'absent') return;
  if (found.state !== 'found') {
    out.roots.push({ provider: 'goose', root: folder.dir, ok: false, error: found.detail });
    return;
  }
  const root: RootStatus = { provider: 'goose', root: folder.dir, ok: true };
  try {
    out.candidates.push(...(await gather(found.owner)));
  } catch (err) {
    root.ok = false;
    root.error = `${folder.dir}: ${errorMessage(err)}`;
  }
  out.roots.push(root);
}

async function gatherLogs(state: string, owner: Owner, ctx: GatherContext): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  const minAgeMs = durationMs(ctx.config.minAge);
  for (const component of COMPONENTS) {
    const dir = logsDir(state, component);
    // Quarantines first: proven dead when they were made (rule 11).
    for (const leftover of await findQuarantines(dir)) candidates.push(quarantine(leftover, state, owner));
    const judged = (await readdirOrEmpty(dir)).filter((entry) => quarantinedName(entry.name) === null);
    ctx.measureAhead?.(judged.filter((entry) => entry.isDirectory()).map((entry) => path.join(dir, entry.name)));
    for (const entry of judged) {
      const candidate = await judgeEntry(entry, dir, state, owner, ctx, minAgeMs);
      if (candidate) candidates.push(candidate);
    }
  }
  ctx.log.debug({ state, items: candidates.length }, 'goose logs gathered');
  return candidates;
}

async function judgeEntry(
  entry: Dirent,
  dir: string,
  state: string,
  owner: Owner,
  ctx: GatherContext,
  minAgeMs: number,
): Promise<Candidate | null> {
  const at = path.join(dir, entry.name);
  const item = (judgement: Candidate['judgement'], removal?: Candidate['removal']): Candidate => ({
    provider: 'goose',
    kind: 'owner-retention',
    path: at,
    root: state,
    judgement,
    homeOwner: owner,
    ...(removal ? { removal } : {}),
  });
  if (entry.isSymbolicLink())
    return item({
      decision: 'refused',
      reason: 'symlink',
      detail: `${at} is a link; Goose writes real folders and files there, and a link is never followed`,
    });
  if (entry.isDirectory() && DATE_FOLDER.test(entry.name)) {
    const stats = await lstatOrNull(at);
    if (!stats) return null;
    await ctx.whenMeasured?.([at]);
    let newestWrite: { ms: number } | { problem: string };
    let bytes = 0;
    let entries = 0;
    try {
      const tree = ctx.measure(at);
      bytes = tree.bytes;
      entries = tree.entries;
      newestWrite = tree.error
        ? { problem: `part of ${at} cannot be read, so its newest write is unknown: ${tree.error}` }
        : { ms: tree.newestWriteMs };
    } catch (err) {
      newestWrite = { problem: `${at} cannot be looked at: ${errorMessage(err)}` };
    }
    const facts = { folderMtimeMs: stats.mtimeMs, newestWrite, bytes, entries, writers: writersOf(at, ctx) };
    const judgement = judgeDateFolder(facts, ctx.now.getTime(), minAgeMs);
    return item(judgement, judgement.decision === 'delete' ? { type: 'tree' } : undefined);
  }
  if (entry.isDirectory()) return item(judgeOtherEntry(`${at}, a folder`));
  if (!entry.isFile()) return null;
  const stats = await lstatOrNull(at);
  if (!stats) return null;
  const named = LOG_FILE.exec(entry.name) ? /-(goosed)\.log$/.exec(entry.name)?.[1] : undefined;
  return item(
    judgeFlatFile({
      bytes: stats.size,
      mtimeMs: stats.mtimeMs,
      namedWriter: named ?? null,
      writers: writersOf(at, ctx),
    }),
    // Reported, never removed: the single-file shape only says what holding it means.
    { type: 'file' },
  );
}

/** The processes that hold anything in `at` open, each with what it runs; null where processes cannot be seen. */
function writersOf(at: string, ctx: GatherContext): Writer[] | null {
  const pids = ctx.holdersOf(at);
  if (pids === null) return null;
  const described = describeProcesses(ctx.processes.procRoot, pids.slice(0, 3));
  return described.map((each) => {
    const record = ctx.processes.records.get(each.pid);
    return {
      pid: each.pid,
      program: record ? gooseProgram(record) : null,
      named: nameProcesses([each], 1).replace(/^process /, ''),
    };
  });
}

async function gatherSessions(data: string, owner: Owner, ctx: GatherContext): Promise<Candidate[]> {
  const sessions = sessionsDir(data);
  const found = await lstatOrNull(sessions);
  if (!found?.isDirectory()) return [];
  await ctx.whenMeasured?.([sessions]);
  const tree = ctx.measure(sessions);
  return [
    {
      provider: 'goose',
      kind: 'task-folder',
      path: sessions,
      root: data,
      judgement: judgeSessions({ bytes: tree.bytes, entries: tree.entries }),
      homeOwner: owner,
    },
  ];
}

function quarantine(leftover: string, state: string, owner: Owner): Candidate {
  return {
    provider: 'goose',
    kind: 'quarantine',
    path: leftover,
    root: state,
    judgement: {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(leftover)} is a quarantine an earlier pass proved dead and did not finish deleting`,
    },
    homeOwner: owner,
  };
}
