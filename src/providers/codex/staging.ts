import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import { newestWrite } from '../../engines/git-worktree/idle.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import type { LockTable } from '../../safety/locks/flock.js';
import type { Owner } from '../../safety/owners/owner.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';
import { isPlainObject } from '../../util/plain-object.js';
import {
  judgeBackup,
  judgeCurrentStaging,
  judgeLegacyStaging,
  judgePluginClone,
  type BackupEvidence,
  type BackupIdentity,
  type LiveCopy,
  type LockSeen,
} from './judge.js';
import {
  BACKUP,
  CURRENT_STAGING,
  INSTALL_RECORD,
  LEGACY_STAGING,
  MANIFESTS,
  PLUGIN_CLONE,
  marketplacesFolder,
  pluginsSyncLock,
  scratchRoot,
  stagingFolder,
  stagingLock,
} from './layout.js';
import { lockedRemoval } from './removal.js';
import type { SettingsRead } from './settings.js';

/** Codex's clones under `$CODEX_HOME/.tmp`, by what they are; everything else there is left alone. */
interface ScratchListing {
  current: string[];
  legacy: Array<{ path: string; made: string; thresholdMs: number }>;
  backups: string[];
  pluginClones: string[];
  /** Folders this tool renamed for deletion and did not finish: finished first (rule 5). */
  quarantines: string[];
}

/** The clones of one Codex home, but in the folders not to be read (a link into another user's files). */
async function listScratch(codexHome: string, notRead: ReadonlySet<string>): Promise<ScratchListing> {
  const listing: ScratchListing = { current: [], legacy: [], backups: [], pluginClones: [], quarantines: [] };
  const folders = async (dir: string) =>
    notRead.has(dir)
      ? []
      : (await readdirOrEmpty(dir)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const quarantineOf = (name: string, ...patterns: RegExp[]) => {
    const original = quarantinedName(name);
    return original !== null && patterns.some((pattern) => pattern.test(original));
  };
  const staging = stagingFolder(codexHome);
  for (const name of await folders(staging)) {
    const legacy = LEGACY_STAGING.find((kind) => kind.pattern.test(name));
    if (legacy)
      listing.legacy.push({ path: path.join(staging, name), made: legacy.made, thresholdMs: legacy.thresholdMs });
    else if (CURRENT_STAGING.test(name)) listing.current.push(path.join(staging, name));
    else if (quarantineOf(name, CURRENT_STAGING, ...LEGACY_STAGING.map((kind) => kind.pattern)))
      listing.quarantines.push(path.join(staging, name));
  }
  const marketplaces = marketplacesFolder(codexHome);
  for (const name of await folders(marketplaces)) {
    if (BACKUP.test(name)) listing.backups.push(path.join(marketplaces, name));
    else if (quarantineOf(name, BACKUP)) listing.quarantines.push(path.join(marketplaces, name));
  }
  const tmp = scratchRoot(codexHome);
  for (const name of await folders(tmp)) {
    if (PLUGIN_CLONE.test(name)) listing.pluginClones.push(path.join(tmp, name));
    else if (quarantineOf(name, PLUGIN_CLONE)) listing.quarantines.push(path.join(tmp, name));
  }
  for (const list of [listing.current, listing.backups, listing.pluginClones, listing.quarantines]) list.sort();
  listing.legacy.sort((a, b) => a.path.localeCompare(b.path));
  return listing;
}

/** A lock file as the plan sees it: there or not, and locked or not (read from /proc/locks, nothing taken). */
function lockSeen(file: string, locks: LockTable): LockSeen {
  let stats: ReturnType<typeof lstatOrNullSync>;
  try {
    stats = lstatOrNullSync(file);
  } catch (err) {
    return { unusable: `${file} cannot be looked at: ${errorMessage(err)}` };
  }
  if (!stats) return 'missing';
  if (!stats.isFile()) return { unusable: `${file} is not a regular file, so it is no lock Codex takes` };
  const locked = locks.isLocked(file);
  if (locked === null) return { unusable: `whether ${file} is held cannot be told: ${locks.unreadable}` };
  return locked ? 'held' : 'free';
}

export interface StagingContext {
  codexHome: string;
  settings: SettingsRead;
  /** config.toml read again, for the re-check under the locks. */
  rereadSettings: () => SettingsRead;
  locks: LockTable;
  homeOwner: Owner;
  /** `.tmp/marketplaces` or its `.staging`, where a link leads into another user's files: never listed. */
  notRead: ReadonlySet<string>;
}

/** Every staging candidate of one Codex home: quarantines, staging folders, plugin clones, then backups. */
export async function stagingCandidates(sc: StagingContext, ctx: GatherContext): Promise<Candidate[]> {
  const { codexHome, locks } = sc;
  const listing = await listScratch(codexHome, sc.notRead);
  const root = scratchRoot(codexHome);
  const lockFile = stagingLock(codexHome);
  const staging = lockSeen(lockFile, locks);
  const candidate = (folder: string, judgement: Candidate['judgement'], removal?: Candidate['removal']): Candidate => ({
    provider: 'codex',
    kind: 'staging',
    path: folder,
    root,
    judgement,
    homeOwner: sc.homeOwner,
    ...(removal && judgement.decision === 'delete' ? { removal } : {}),
  });
  const candidates: Candidate[] = listing.quarantines.map((folder) => ({
    ...candidate(folder, {
      decision: 'delete',
      reason: 'quarantine-leftover',
      detail: `${path.basename(folder)} is a Codex clone this tool renamed for deletion, whose removal did not finish`,
    }),
    kind: 'quarantine',
  }));
  for (const folder of listing.current) {
    const own = path.join(folder, '.lock');
    candidates.push(
      candidate(
        folder,
        judgeCurrentStaging(folder, lockSeen(own, locks), staging, lockFile),
        lockedRemoval({
          locks: [{ file: lockFile, required: true }],
          // Looked for under `.staging.lock` only: Codex makes a staging folder's `.lock` under it.
          thenLocks: async () => [{ file: own, required: false, inside: true }],
        }),
      ),
    );
  }
  ctx.measureAhead?.(listing.legacy.map((legacy) => legacy.path));
  for (const legacy of listing.legacy) {
    await ctx.whenMeasured?.([legacy.path]);
    const judgement = judgeLegacyStaging(
      legacy.made,
      legacy.thresholdMs,
      newestWrite([legacy.path], ctx.measure),
      // Older versions made no lock: one that is not there holds nothing back.
      staging === 'missing' ? 'free' : staging,
      lockFile,
      ctx.now.getTime(),
    );
    candidates.push(candidate(legacy.path, judgement, lockedRemoval({ locks: [{ file: lockFile, required: false }] })));
  }
  const syncLock = pluginsSyncLock(codexHome);
  for (const folder of listing.pluginClones)
    candidates.push(
      candidate(
        folder,
        judgePluginClone(lockSeen(syncLock, locks), syncLock),
        lockedRemoval({ locks: [{ file: syncLock, required: true }] }),
      ),
    );
  const busyStaging = listing.current.filter((folder) => lockSeen(path.join(folder, '.lock'), locks) === 'held');
  for (const folder of listing.backups) {
    const evidence = readBackup(folder, codexHome, sc.settings, staging, busyStaging);
    candidates.push(
      candidate(
        folder,
        judgeBackup(evidence),
        lockedRemoval({
          locks: [{ file: lockFile, required: true }],
          // Under `.staging.lock` no staging folder can be made: every one's `.lock` is taken too.
          thenLocks: async () =>
            (await listScratch(codexHome, sc.notRead)).current.map((staged) => ({
              file: path.join(staged, '.lock'),
              required: false,
            })),
          rejudge: () => judgeBackup(readBackup(folder, codexHome, sc.rereadSettings(), 'free', [])),
        }),
      ),
    );
  }
  return candidates;
}

/** Larger than any manifest or install record a marketplace carries; a bigger file is not read. */
const MAX_RECORD_BYTES = 1024 * 1024;

/** What a backup holds and which marketplace it is, and the live copy of that marketplace. */
function readBackup(
  folder: string,
  codexHome: string,
  settings: SettingsRead,
  stagingLockSeen: LockSeen,
  busyStaging: string[],
): BackupEvidence {
  const copyName = ['root', 'repo'].find((name) => lstatOrNullSync(path.join(folder, name))?.isDirectory() === true);
  const copy = copyName ?? null;
  const identity: BackupIdentity = copy === null ? { unknown: 'no copy' } : identify(path.join(folder, copy));
  let live: LiveCopy | null = null;
  let configured: BackupEvidence['configured'] = null;
  if ('name' in identity) {
    const livePath = path.join(marketplacesFolder(codexHome), identity.name);
    live = readLive(livePath, identity.name);
    if (settings.state === 'unreadable') configured = { unreadable: settings.error };
    else configured = settings.settings.marketplaces.get(identity.name) ?? null;
  }
  return {
    path: folder,
    copy,
    identity,
    live,
    configured,
    stagingLock: stagingLockSeen,
    stagingLockFile: stagingLock(codexHome),
    busyStaging,
  };
}

/** A marketplace copy's name (its manifest) and source (its install record, where Codex wrote one). */
function identify(copy: string): BackupIdentity {
  let manifest: Record<string, unknown> | null = null;
  let record: Record<string, unknown> | null = null;
  try {
    for (const relative of MANIFESTS) {
      manifest = readJsonObject(path.join(copy, relative));
      if (manifest) break;
    }
    record = readJsonObject(path.join(copy, INSTALL_RECORD));
  } catch (err) {
    return { unknown: errorMessage(err) };
  }
  if (!manifest) return { unknown: `no marketplace manifest (${MANIFESTS.join(', ')}) in ${copy}` };
  const name = manifest.name;
  if (typeof name !== 'string' || !isSegment(name)) return { unknown: `its manifest names no usable marketplace name` };
  return { name, source: text(record?.source), sourceType: text(record?.source_type) };
}

function readLive(livePath: string, name: string): LiveCopy {
  let stats: ReturnType<typeof lstatOrNullSync>;
  try {
    stats = lstatOrNullSync(livePath);
  } catch (err) {
    return { state: 'broken', path: livePath, why: errorMessage(err) };
  }
  if (!stats) return { state: 'missing', path: livePath };
  if (!stats.isDirectory()) return { state: 'broken', path: livePath, why: 'it is not a folder' };
  const identity = identify(livePath);
  if ('unknown' in identity) return { state: 'broken', path: livePath, why: identity.unknown };
  if (identity.name !== name)
    return { state: 'broken', path: livePath, why: `its manifest names marketplace ${identity.name}` };
  return { state: 'whole', path: livePath, name, source: identity.source };
}

/** A JSON object in a regular file (never through a link), null where the file is not there. */
function readJsonObject(file: string): Record<string, unknown> | null {
  const bytes = readRegularFileSync(file, MAX_RECORD_BYTES);
  if (!bytes) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new Error(`${file} is not JSON: ${errorMessage(err)}`);
  }
  if (!isPlainObject(value)) throw new Error(`${file} is not a JSON object`);
  return value;
}

/** A marketplace name Codex accepts as one path segment. */
const isSegment = (name: string): boolean => /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..';

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
