import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { OwnerJudgement } from '../../model/types.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { readdirNamesSync, readdirOrEmpty } from '../../safety/fs/list.js';
import { lstatOrNull, type Stats } from '../../safety/fs/stat.js';
import type { Owner } from '../../safety/owners/owner.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import { pidsInside, union } from '../../safety/processes/processes.js';
import { durationMs } from '../../util/duration.js';
import { formatBytes, formatCount } from '../../util/format.js';
import type { KiloRecords } from './database.js';
import { appName, type KiloLocation } from './layout.js';
import { anotherDatabase } from './opencode-db-variable.js';
import {
  judgeSessionDiff,
  judgeTimestampedLog,
  judgeToolOutput,
  SESSION_DIFF,
  tenthNewestLog,
  TIMESTAMPED_LOG,
  TOOL_OUTPUT,
  type SessionKnown,
} from './retention-judge.js';

/**
 * opencode's own retention, where opencode fails to apply it (kind `owner-retention`, README.md):
 * its per-process logs beyond the ten newest, tool outputs past seven days and the diffs of deleted
 * sessions, each a single file; what no rule of opencode's covers is reported, never deleted. Kilo
 * Code's folders (and those of a data folder of unknown app) are only reported: its rules are not
 * verified here.
 */
export async function retentionCandidates(
  location: KiloLocation,
  homeOwner: Owner,
  records: KiloRecords | null,
  sourceProblem: string | undefined,
  ctx: GatherContext,
): Promise<Candidate[]> {
  if (location.app !== 'opencode') return reportedOnly(location, ctx);
  const place: Place = { location, homeOwner, ctx, sourceProblem };
  return [...(await logs(place)), ...(await toolOutputs(place)), ...(await sessionDiffs(place, records))];
}

interface Place {
  location: KiloLocation;
  homeOwner: Owner;
  ctx: GatherContext;
  /** Why the data folder's databases (or its config) cannot be read: nothing in it is deleted then (rule 1). */
  sourceProblem: string | undefined;
}

/** A file of the data folder, judged on its own and removed as a single file. */
function fileItem(place: Place, file: string, judgement: OwnerJudgement): Candidate {
  const stopped: OwnerJudgement | null =
    judgement.decision === 'delete' && place.sourceProblem
      ? {
          decision: 'refused',
          reason: 'source-unreadable',
          detail: `${place.sourceProblem}; else: ${judgement.detail}`,
        }
      : null;
  return {
    provider: 'kilo',
    kind: 'owner-retention',
    path: file,
    root: place.location.dataDir,
    judgement: stopped ?? judgement,
    homeOwner: place.homeOwner,
    ...(stopped === null && judgement.decision === 'delete' ? { removal: { type: 'file' as const } } : {}),
  };
}

/** What is only reported: no path, since nothing of it is ever the pass's to delete or to hold back. */
function reported(judgement: OwnerJudgement): Candidate {
  return { provider: 'kilo', kind: 'owner-retention', path: null, root: null, judgement };
}

/** A folder of the data folder, listed when it is a real folder: a link is never followed. */
type Listing =
  | { state: 'absent' }
  | { state: 'refused'; item: Candidate }
  | { state: 'listed'; entries: Array<{ name: string; file: string; stats: Stats }>; vanished: Candidate[] };

async function listFolder(place: Place, folder: string): Promise<Listing> {
  const refuse = (reason: string, detail: string): Listing => ({
    state: 'refused',
    item: reported({ decision: 'refused', reason, detail }),
  });
  let stats: Stats | null;
  let names: string[];
  try {
    stats = await lstatOrNull(folder);
    if (stats === null || (!stats.isDirectory() && !stats.isSymbolicLink())) return { state: 'absent' };
    if (stats.isSymbolicLink())
      return refuse('symlink', `${folder}: a symbolic link, never followed, so nothing behind it is judged`);
    names = (await readdirOrEmpty(folder)).map((entry) => entry.name).sort();
  } catch (err) {
    return refuse('unreadable', `${folder}: cannot be listed, so nothing in it is judged (${errorMessage(err)})`);
  }
  const entries: Array<{ name: string; file: string; stats: Stats }> = [];
  const vanished: Candidate[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    const refused = (reason: string, detail: string) =>
      vanished.push(fileItem(place, file, { decision: 'refused', reason, detail }));
    try {
      const entry = await lstatOrNull(file);
      if (entry) entries.push({ name, file, stats: entry });
      // Listed, then gone: a name that cannot be looked up is never passed over (rule 13).
      else if (stillListed(folder, name))
        refused('changed-during-inspection', `${file} is listed in its folder but cannot be looked at`);
    } catch (err) {
      refused('unreadable', `${file} cannot be looked at: ${errorMessage(err)}`);
    }
  }
  return { state: 'listed', entries, vanished };
}

function stillListed(folder: string, name: string): boolean {
  try {
    return readdirNamesSync(folder).includes(name);
  } catch {
    return false;
  }
}

/** How many of a file's holders its detail names. */
const HOLDERS_NAMED = 3;

/** Who holds a file (open, mapped, or a working directory in a folder), in words, from the pass's one look at /proc. */
function writersOf(ctx: GatherContext, target: string, stats: Stats): string {
  const { processes } = ctx;
  if (!processes.visible) return 'whether a process holds it cannot be told (processes cannot be seen)';
  const pids = stats.isDirectory()
    ? (ctx.holdersOf(target) ?? [])
    : union(pidsInside(processes, target), processes.identities.holdersOf(stats.dev, stats.ino) ?? []);
  if (pids.length === 0) return 'no process holds it';
  return `held by ${nameProcesses(describeProcesses(processes.procRoot, pids.slice(0, HOLDERS_NAMED)), pids.length)}`;
}

function sizeOf(ctx: GatherContext, target: string, stats: Stats): string {
  if (!stats.isDirectory()) return formatBytes(stats.size);
  try {
    const tree = ctx.measure(target);
    const files = `${formatCount(tree.entries)} entr${tree.entries === 1 ? 'y' : 'ies'}, ${formatBytes(tree.bytes)}`;
    return tree.error ? `${files} (part of it cannot be read)` : files;
  } catch (err) {
    return `size unknown (${errorMessage(err)})`;
  }
}

/**
 * `<data>/log/`: an older opencode's per-process logs beyond the ten newest go, one by one; every
 * other entry is reported with its size and the processes that hold it: `opencode.log` (1.18.33
 * appends every run to it and never rotates it), heap snapshots, `direct/` traces, the ten newest.
 */
async function logs(place: Place): Promise<Candidate[]> {
  const folder = path.join(place.location.dataDir, 'log');
  const listing = await listFolder(place, folder);
  if (listing.state === 'absent') return [];
  if (listing.state === 'refused') return [listing.item];
  const regular = listing.entries.filter((entry) => entry.stats.isFile()).map((entry) => entry.name);
  const tenth = tenthNewestLog(regular);
  const newest =
    [...regular]
      .filter((name) => TIMESTAMPED_LOG.test(name))
      .sort()
      .at(-1) ?? '';
  const candidates: Candidate[] = [...listing.vanished];
  for (const { name, file, stats } of listing.entries) {
    const described = (why: string): OwnerJudgement => ({
      decision: 'kept',
      reason: 'opencode-log-reported',
      detail: `${file}: ${sizeOf(place.ctx, file, stats)}, ${writersOf(place.ctx, file, stats)}; ${why}`,
    });
    if (TIMESTAMPED_LOG.test(name)) {
      const judgement = judgeTimestampedLog(name, tenth, newest);
      candidates.push(
        judgement.decision === 'delete'
          ? fileItem(place, file, judgement)
          : reported(described(`${judgement.detail}; reported only`)),
      );
    } else candidates.push(reported(described(`${whatLogIs(name, stats)}; reported only, never deleted`)));
  }
  return candidates;
}

function whatLogIs(name: string, stats: Stats): string {
  if (name === 'opencode.log')
    return 'opencode (since 1.18.33) appends every run to this one file and never rotates or removes it: quit opencode, then truncate or remove it yourself';
  if (/^heap-.*\.heapsnapshot$/.test(name))
    return 'a heap snapshot opencode wrote when its memory passed 2 GiB (OPENCODE_AUTO_HEAP_SNAPSHOT); no rule of opencode removes it';
  if (name === 'direct' && stats.isDirectory())
    return "opencode's direct traces (OPENCODE_DIRECT_TRACE); no rule of opencode removes them";
  return 'no retention rule of opencode covers it';
}

/** `<data>/tool-output/tool_*`: past opencode's own seven days (and minAge) they go, one by one; the rest is summed up. */
async function toolOutputs(place: Place): Promise<Candidate[]> {
  const folder = path.join(place.location.dataDir, 'tool-output');
  const listing = await listFolder(place, folder);
  if (listing.state === 'absent') return [];
  if (listing.state === 'refused') return [listing.item];
  const nowMs = place.ctx.now.getTime();
  const minAgeMs = durationMs(place.ctx.config.minAge);
  const candidates: Candidate[] = [...listing.vanished];
  let kept = 0;
  let keptBytes = 0;
  let oldest: number | null = null;
  for (const { name, file, stats } of listing.entries) {
    if (!TOOL_OUTPUT.test(name)) continue;
    const judgement = judgeToolOutput(stats.mtimeMs, nowMs, minAgeMs);
    if (judgement.decision === 'delete') candidates.push(fileItem(place, file, judgement));
    else {
      kept += 1;
      keptBytes += stats.isFile() ? stats.size : 0;
      oldest = oldest === null ? stats.mtimeMs : Math.min(oldest, stats.mtimeMs);
    }
  }
  if (oldest !== null)
    candidates.push(
      reported({
        decision: 'kept',
        reason: 'opencode-tool-output-retained',
        detail: `${folder}: ${formatCount(kept)} tool output${kept === 1 ? '' : 's'}, ${formatBytes(keptBytes)}; the oldest ${judgeToolOutput(oldest, nowMs, minAgeMs).detail}`,
      }),
    );
  return candidates;
}

/** How many of the live sessions' diffs the summary names by size. */
const LARGEST_NAMED = 3;

/**
 * `<data>/storage/session_diff/<sessionID>.json`: the diff of a session that no database of the
 * data folder has and no legacy session file names goes, one by one; the diffs of live sessions
 * are summed up. Where the sessions cannot all be known (a database unreadable or without a session
 * table, none at all, a live opencode using another database), every diff not found is refused.
 */
async function sessionDiffs(place: Place, records: KiloRecords | null): Promise<Candidate[]> {
  const storage = path.join(place.location.dataDir, 'storage');
  // One that cannot be looked at is found out by the listing below.
  const storageStats = await lstatOrNull(storage).catch(() => null);
  if (storageStats?.isSymbolicLink())
    return [
      reported({
        decision: 'refused',
        reason: 'symlink',
        detail: `${storage}: a symbolic link, never followed, so no session diff behind it is judged`,
      }),
    ];
  const folder = path.join(storage, 'session_diff');
  const listing = await listFolder(place, folder);
  if (listing.state === 'absent') return [];
  if (listing.state === 'refused') return [listing.item];
  const diffs = listing.entries.flatMap((entry) => {
    const id = SESSION_DIFF.exec(entry.name)?.[1];
    return id ? [{ ...entry, id }] : [];
  });
  if (diffs.length === 0) return listing.vanished;
  const legacy = await legacySessions(storage);
  const unknown = whySessionsUnknown(place, records, legacy);
  const candidates: Candidate[] = [...listing.vanished];
  const live: Array<{ id: string; bytes: number }> = [];
  for (const { id, file, stats } of diffs) {
    const known: SessionKnown =
      records?.sessions.has(id) === true
        ? { state: 'live', where: 'a database' }
        : !('why' in legacy) && legacy.has(id)
          ? { state: 'live', where: `a legacy session file (${legacy.get(id)})` }
          : unknown !== null
            ? { state: 'unknown', why: unknown }
            : { state: 'gone', databases: (records?.files ?? []).map((each) => path.basename(each)) };
    const judgement = judgeSessionDiff(id, known);
    if (judgement.decision === 'kept') live.push({ id, bytes: stats.isFile() ? stats.size : 0 });
    else candidates.push(fileItem(place, file, judgement));
  }
  if (live.length > 0) {
    const bytes = live.reduce((sum, each) => sum + each.bytes, 0);
    const largest = [...live]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, LARGEST_NAMED)
      .map((each) => `${each.id} ${formatBytes(each.bytes)}`);
    candidates.push(
      reported({
        decision: 'kept',
        reason: 'opencode-diff-live',
        detail: `${folder}: the file diffs of ${formatCount(live.length)} session${live.length === 1 ? '' : 's'} opencode still has, ${formatBytes(bytes)} (the largest: ${largest.join(', ')}); a diff goes once its session is deleted (\`opencode session delete <id>\` leaves it behind)`,
      }),
    );
  }
  return candidates;
}

/**
 * Why the sessions of the data folder cannot all be known, or null when every database was read,
 * each has a session table, no live process names another, and the legacy session files were listed.
 */
function whySessionsUnknown(
  place: Place,
  records: KiloRecords | null,
  legacy: Map<string, string> | { why: string },
): string | null {
  const { dataDir } = place.location;
  if (place.sourceProblem) return `the databases cannot be read: ${place.sourceProblem}`;
  if (records === null) return `no opencode database is in ${dataDir}`;
  if (records.sessionless.length > 0)
    return `${records.sessionless.join(', ')} ${records.sessionless.length === 1 ? 'has' : 'have'} no session table with an id column`;
  if ('why' in legacy) return legacy.why;
  return anotherDatabase(place.ctx.processes, dataDir, records.files);
}

/** Session ids of the legacy `storage/session/<projectID>/<id>.json` files, each with its file. */
async function legacySessions(storage: string): Promise<Map<string, string> | { why: string }> {
  const sessions = path.join(storage, 'session');
  const ids = new Map<string, string>();
  try {
    const top = await lstatOrNull(sessions);
    if (top === null) return ids;
    if (!top.isDirectory()) return { why: `${sessions} is not a real folder (a link is never followed)` };
    for (const project of await readdirOrEmpty(sessions)) {
      const folder = path.join(sessions, project.name);
      const stats = await lstatOrNull(folder);
      if (stats?.isSymbolicLink()) return { why: `${folder} is a symbolic link, never followed` };
      if (!stats?.isDirectory()) continue;
      for (const entry of await readdirOrEmpty(folder))
        if (entry.name.endsWith('.json')) ids.set(entry.name.slice(0, -'.json'.length), path.join(folder, entry.name));
    }
  } catch (err) {
    return { why: `the legacy session files cannot be listed: ${errorMessage(err)}` };
  }
  return ids;
}

/**
 * Kilo Code's (or an unknown app's) log, tool output and session diff folders: reported with their
 * size and never deleted. Kilo Code is opencode's fork, but its own retention is not verified here.
 */
async function reportedOnly(location: KiloLocation, ctx: GatherContext): Promise<Candidate[]> {
  const app = appName(location.app);
  const candidates: Candidate[] = [];
  for (const [relative, what] of [
    [['log'], 'logs'],
    [['tool-output'], 'tool outputs'],
    [['storage', 'session_diff'], 'session diffs'],
  ] as const) {
    const folder = path.join(location.dataDir, ...relative);
    let size: string;
    try {
      // Each folder on the way is looked at itself: a link is reported, never followed.
      const above = relative.length > 1 ? await lstatOrNull(path.join(location.dataDir, relative[0])) : null;
      const stats = above?.isSymbolicLink() ? above : await lstatOrNull(folder);
      if (stats === null) continue;
      size = stats.isSymbolicLink() ? 'behind a symbolic link, never followed' : sizeOf(ctx, folder, stats);
    } catch (err) {
      size = `cannot be looked at (${errorMessage(err)})`;
    }
    candidates.push(
      reported({
        decision: 'kept',
        reason: 'kilo-retention-unverified',
        detail: `${folder}: ${app}'s ${what}, ${size}; reported only, never deleted: opencode's retention of these is applied to opencode's data folder alone, and ${app}'s own is not verified here`,
      }),
    );
  }
  return candidates;
}
