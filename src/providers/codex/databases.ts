import path from 'node:path';
import { RemovalStopped } from '../../model/errors.js';
import type { Candidate, GuardHold } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { walCandidates, type WalDatabase } from '../../engines/sqlite-wal/candidates.js';
import { flockSignal } from '../../engines/sqlite-wal/signals.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import type { LockTable } from '../../safety/locks/flock.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { nameProcesses } from '../../safety/processes/process-description.js';
import { walFilesOf, walHolders, examineWalPair } from '../../safety/wal/pair.js';
import { durationMs } from '../../util/duration.js';
import { foundCodexHomes, type FoundHome } from './homes.js';
import { judgeSupersededLog } from './judge.js';
import {
  CODEX_DATABASES,
  CURRENT_LOGS,
  LOG_RETENTION_MS,
  LOGS_DATABASE,
  MAINTENANCE_LOCK,
  THREAD_DATABASE,
} from './layout.js';
import { databaseBasis, readCodexSettings } from './settings.js';

/** A folder Codex keeps SQLite databases in, and whose it is. */
interface SqliteFolder {
  folder: string;
  owner: Owner;
}

/**
 * Codex's databases in every Codex home the pass finds (rule 27: `~/.codex`, `$CODEX_HOME`, the
 * homes of its live processes, the config's) and in each one's sqlite home: the seven it writes,
 * whose logs a checkpoint reclaims (`wal-checkpoint`), and the older numbered log databases it no
 * longer opens (`superseded-log-db`). The thread database this provider also reads for its
 * records stays read-only for that; the checkpoint is an item of its own.
 */
export async function codexDatabaseCandidates(ctx: GatherContext, locks: LockTable): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  const databases: WalDatabase[] = [];
  for (const { folder, owner } of sqliteFolders(foundCodexHomes(ctx))) {
    const signal = flockSignal(path.join(folder, MAINTENANCE_LOCK), locks, "Codex's maintenance lock");
    for (const name of CODEX_DATABASES)
      databases.push({
        database: path.join(folder, name),
        root: folder,
        homeOwner: owner,
        tool: 'Codex',
        readByThePass: name === THREAD_DATABASE,
        signal,
      });
    candidates.push(...(await supersededLogs(folder, owner, ctx)));
  }
  return [...walCandidates('codex', databases, ctx), ...candidates];
}

/**
 * Each folder a found Codex home keeps databases in, once: `$CODEX_HOME` itself, and its sqlite
 * home (config.toml's `sqlite_home`, else each `$CODEX_SQLITE_HOME` it was found with), where it is
 * the home's owner's (rule 20). A home that cannot be read from here has none to speak of.
 */
function sqliteFolders(homes: readonly FoundHome[]): SqliteFolder[] {
  const folders = new Map<string, SqliteFolder>();
  for (const found of homes) {
    if (found.unreachable) continue;
    const settings = readCodexSettings(found);
    const named =
      settings.state === 'unreadable'
        ? found.sqliteHomes.filter((home): home is string => home !== null)
        : settings.settings.sqliteHome
          ? [settings.settings.sqliteHome]
          : found.sqliteHomes.map((home) => home ?? found.codexHome);
    for (const folder of [found.codexHome, ...named].map((each) => path.resolve(each))) {
      if (folders.has(folder)) continue;
      const basis = databaseBasis(found, path.join(folder, THREAD_DATABASE));
      if (basis === null) continue;
      const located = locate(folder, basis);
      if (located.state === 'found') folders.set(folder, { folder, owner: located.owner });
    }
  }
  return [...folders.values()];
}

/** How many of the processes holding a superseded log database its refusal names. */
const HOLDERS_NAMED = 3;

/**
 * `logs_<n>.sqlite` below the current number, each with its log and shared memory: three items
 * (each file is judged, proven and removed as a single file, with the same judgement), the log and
 * shared memory first. The database goes last and only once neither is there any more: a log
 * left without its database would make a later SQLite create an empty one beside it.
 */
async function supersededLogs(folder: string, owner: Owner, ctx: GatherContext): Promise<Candidate[]> {
  const current = path.join(folder, `logs_${CURRENT_LOGS}.sqlite`);
  const names = (await readdirOrEmpty(folder))
    .filter((entry) => entry.isFile() && Number(LOGS_DATABASE.exec(entry.name)?.[1] ?? CURRENT_LOGS) < CURRENT_LOGS)
    .map((entry) => entry.name)
    .sort();
  if (names.length === 0) return [];
  const currentThere = lstatOrNullSync(current)?.isFile() === true;
  const minAgeMs = durationMs(ctx.config.minAge);
  const candidates: Candidate[] = [];
  for (const name of names) {
    const files = walFilesOf(path.join(folder, name));
    const present = [files.wal, files.shm, files.database]
      .map((file) => ({ file, stats: lstatOrNullSync(file) }))
      .filter((each) => each.stats !== null);
    const newestWriteMs = Math.max(...present.map((each) => each.stats?.mtimeMs ?? 0));
    const processes = ctx.processes.visible ? ctx.processes : null;
    const holders = processes ? walHolders(processes, files, examineWalPair(files.database)) : [];
    const heldBy =
      processes && holders.length > 0
        ? nameProcesses(describeProcesses(processes.procRoot, holders.slice(0, HOLDERS_NAMED)), holders.length)
        : null;
    const judgement = judgeSupersededLog(
      { database: files.database, current, currentThere, newestWriteMs, heldBy },
      LOG_RETENTION_MS,
      minAgeMs,
      ctx.now.getTime(),
    );
    for (const { file } of present)
      candidates.push({
        provider: 'codex',
        kind: 'superseded-log-db',
        path: file,
        root: folder,
        judgement,
        homeOwner: owner,
        removal:
          file === files.database
            ? { type: 'file', guard: { recheck: async () => noLogLeft(files) } }
            : { type: 'file' },
      });
  }
  return candidates;
}

/**
 * The database of a superseded log goes only once its log and shared memory are gone: a log left
 * behind without it would make a later SQLite create an empty database beside it.
 */
async function noLogLeft(files: ReturnType<typeof walFilesOf>): Promise<GuardHold | undefined> {
  const left = [files.wal, files.shm].filter((file) => lstatOrNullSync(file) !== null);
  if (left.length > 0)
    throw new RemovalStopped(
      'refused',
      'log-db-wal-remains',
      `${left.join(' and ')} ${left.length === 1 ? 'is' : 'are'} still there, and the database goes only after its log and shared memory`,
    );
  return undefined;
}
