import path from 'node:path';
import { errorMessage, RemovalStopped } from '../../model/errors.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { walCandidates, type WalDatabase } from '../../engines/sqlite-wal/candidates.js';
import type { ToolSignal } from '../../engines/sqlite-wal/signals.js';
import { readdirNamesSync, readdirOrEmpty } from '../../safety/fs/list.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { basisOf, type LocationBasis } from '../../safety/owners/location-basis.js';
import { locate } from '../../safety/owners/locations.js';
import { isProcessAlive } from '../../safety/processes/processes.js';
import { isPlainObject } from '../../util/plain-object.js';
import { clineConfig } from './config.js';

/**
 * The Cline hub (the daemon of the Cline CLI and SDK, not the VS Code extension) keeps its event
 * log and its runs, schedules, tasks and connectors in SQLite databases in WAL mode, in its db
 * folder; its discovery record names the pid of the hub that runs.
 */
const HUB_DATABASE = /^(?:hub-events-.+|hub-runs-.+|cron|tasks|connectors)\.db$/;

/** Larger than any discovery record the hub writes; a bigger file is not read. */
const MAX_RECORD_BYTES = 64 * 1024;

/** One Cline data folder's hub: its db folder and where its discovery records are. */
interface HubPlace {
  dbDir: string;
  /** `<data>/locks/hub`: `production.json`, and one record per owner in `owners/`. */
  recordsDir: string;
  /** A record the environment names (`$CLINE_HUB_DISCOVERY_PATH`), for the current user's own home. */
  namedRecord: string | null;
  basis: LocationBasis;
}

/**
 * Where each hub is: for each home, `$CLINE_DB_DATA_DIR`, else `<data>/db` with `<data>` =
 * `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else `~/.cline/data` (the variables of the current
 * user's own home only); for each Cline data folder the config names, `<data>/db`. A config that
 * names only editor folders names no hub.
 */
function hubPlaces(ctx: Pick<GatherContext, 'config' | 'homes' | 'env'>): HubPlace[] {
  const section = clineConfig(ctx.config);
  const place = (data: string, dbDir: string, namedRecord: string | null, basis: LocationBasis): HubPlace => ({
    dbDir,
    recordsDir: path.join(data, 'locks', 'hub'),
    namedRecord,
    basis,
  });
  if (section.userDataDir || section.dataDir)
    return (section.dataDir ?? []).map((dir) => {
      const data = path.resolve(dir);
      return place(data, path.join(data, 'db'), null, basisOf(data, ctx.homes));
    });
  return ctx.homes.map((given) => {
    const home = path.resolve(given);
    const own = Boolean(ctx.env.HOME) && path.resolve(ctx.env.HOME as string) === home;
    const variable = (name: string) => {
      const value = own ? ctx.env[name]?.trim() : undefined;
      return value && path.isAbsolute(value) ? path.resolve(value) : null;
    };
    const clineDir = variable('CLINE_DIR') ?? path.join(home, '.cline');
    const data = variable('CLINE_DATA_DIR') ?? path.join(clineDir, 'data');
    return place(data, variable('CLINE_DB_DATA_DIR') ?? path.join(data, 'db'), variable('CLINE_HUB_DISCOVERY_PATH'), {
      home,
    });
  });
}

/** The logs of every hub's databases (`wal-checkpoint`), while no hub runs. */
export async function hubCandidates(ctx: GatherContext): Promise<Candidate[]> {
  const databases: WalDatabase[] = [];
  for (const hub of hubPlaces(ctx)) {
    const located = locate(hub.dbDir, hub.basis);
    if (located.state !== 'found') continue;
    const signal = hubSignal(hub);
    for (const entry of await readdirOrEmpty(hub.dbDir))
      if (entry.isFile() && HUB_DATABASE.test(entry.name))
        databases.push({
          database: path.join(hub.dbDir, entry.name),
          root: hub.dbDir,
          homeOwner: located.owner,
          tool: 'the Cline hub',
          signal,
        });
  }
  return walCandidates('cline', databases, ctx);
}

/**
 * The hub runs while a discovery record names a live pid (`production.json`, an owner's record in
 * `owners/`, the one `$CLINE_HUB_DISCOVERY_PATH` names). A record that cannot be read, or names no
 * pid, says nothing of the hub: it counts as running.
 */
function hubSignal(hub: HubPlace): ToolSignal {
  const atWork = (): string | null => {
    for (const record of hubRecords(hub)) {
      const pid = recordPid(record);
      if (typeof pid === 'string') return pid;
      if (isProcessAlive(pid)) return `the Cline hub runs (process ${pid}, named by its discovery record ${record})`;
    }
    return null;
  };
  return {
    atWork,
    guard: {
      async recheck() {
        const running = atWork();
        if (running) throw new RemovalStopped('refused', 'in-use', `${running}, found just before the checkpoint`);
        return undefined;
      },
    },
  };
}

/** The discovery records there are. */
function hubRecords(hub: HubPlace): string[] {
  const owners = path.join(hub.recordsDir, 'owners');
  const records = [path.join(hub.recordsDir, 'production.json')];
  try {
    records.push(
      ...readdirNamesSync(owners)
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => path.join(owners, name)),
    );
  } catch {
    // No owners' folder (or none to read): the production record is all there is.
  }
  if (hub.namedRecord) records.push(hub.namedRecord);
  return records;
}

/** The pid a discovery record names, or why it names none; a record that is not there is no pid (0). */
function recordPid(record: string): number | string {
  let bytes: Buffer | null;
  try {
    bytes = readRegularFileSync(record, MAX_RECORD_BYTES);
  } catch (err) {
    return `the Cline hub's discovery record ${record} cannot be read (${errorMessage(err)}), so whether the hub runs cannot be told`;
  }
  if (bytes === null) return 0;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return `the Cline hub's discovery record ${record} is not JSON, so whether the hub runs cannot be told`;
  }
  const pid = isPlainObject(value) ? value.pid : undefined;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0)
    return `the Cline hub's discovery record ${record} names no pid, so whether the hub runs cannot be told`;
  return pid;
}
