import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import { readdirOrEmpty, type Dirent } from '../../safety/fs/list.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { lstatOrNull, readlinkSync } from '../../safety/fs/stat.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { formatBytes, formatCount } from '../../util/format.js';

/**
 * What Codex keeps that is no scratch of a dead process, reported and never deleted: conversations
 * (rollouts, per thread), its SQLite databases, shell snapshots, and app server releases older than
 * the live one. A person decides on these; the detail says how.
 */

/** How many threads a detail names by size. */
const LARGEST_NAMED = 3;
/** `rollout-<time>-<thread id>.jsonl` (and compressed forms): the thread is the UUID at the end. */
const ROLLOUT = /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.[a-z0-9]+)?$/i;
/** sessions/<year>/<month>/<day>/: no deeper. */
const SESSION_DEPTH = 4;

export async function usageCandidates(
  codexHome: string,
  basis: LocationBasis,
  sqliteHome: string,
  homeOwner: Owner,
): Promise<Candidate[]> {
  const candidates: Candidate[] = [];
  const kept = (folder: string, kind: Candidate['kind'], reason: string, detail: string): Candidate => ({
    provider: 'codex',
    kind,
    path: folder,
    root: codexHome,
    judgement: { decision: 'kept', reason, detail },
    homeOwner,
  });
  const databases = await databaseSizes(sqliteHome);
  for (const [name, archived] of [
    ['sessions', false],
    ['archived_sessions', true],
  ] as const) {
    const folder = path.join(codexHome, name);
    if (!(await lstatOrNull(folder))?.isDirectory()) continue;
    const threads = await rolloutSizes(folder, SESSION_DEPTH);
    const total = [...threads.values()].reduce((sum, bytes) => sum + bytes, 0);
    const largest = [...threads.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, LARGEST_NAMED)
      .map(([id, bytes]) => `${id}${archived ? ' (archived)' : ''} ${formatBytes(bytes)}`);
    const parts = [
      `conversations of ${formatCount(threads.size)} ${archived ? 'archived ' : ''}Codex thread${threads.size === 1 ? '' : 's'}, ${formatBytes(total)}`,
      ...(largest.length > 0 ? [`the largest: ${largest.join(', ')}`] : []),
      '`codex delete <thread id>` drops a thread with its rollout; never deleted here',
      ...(!archived && databases ? [databases] : []),
    ];
    candidates.push(kept(folder, 'task-folder', 'codex-conversations', parts.join('; ')));
  }
  const snapshots = path.join(codexHome, 'shell_snapshots');
  if ((await lstatOrNull(snapshots))?.isDirectory()) {
    const files = await rolloutSizes(snapshots, 1, /.*/);
    candidates.push(
      kept(
        snapshots,
        'task-folder',
        'codex-conversations',
        `Codex's shell snapshots, ${formatCount(files.size)} file${files.size === 1 ? '' : 's'}: the shell each thread's commands start from; never deleted here`,
      ),
    );
  }
  candidates.push(...(await oldReleases(codexHome, basis, kept)));
  return candidates;
}

/** Bytes per thread (or per file, for another pattern) of the files below `folder`. */
async function rolloutSizes(folder: string, depth: number, pattern: RegExp = ROLLOUT): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const pending: Array<{ dir: string; depth: number }> = [{ dir: folder, depth }];
  while (pending.length > 0) {
    const { dir, depth: left } = pending.pop() as { dir: string; depth: number };
    for (const entry of await readdirOrEmpty(dir)) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (left > 1) pending.push({ dir: full, depth: left - 1 });
        continue;
      }
      const match = pattern.exec(entry.name);
      if (!entry.isFile() || !match) continue;
      const stats = await lstatOrNull(full);
      const key = match[1] ?? entry.name;
      sizes.set(key, (sizes.get(key) ?? 0) + (stats?.size ?? 0));
    }
  }
  return sizes;
}

/** Codex's SQLite files in its SQLite home, each with its WAL, in words; null when there are none. */
async function databaseSizes(sqliteHome: string): Promise<string | null> {
  const sizes = new Map<string, number>();
  for (const entry of await readdirOrEmpty(sqliteHome)) {
    const match = /^(.+\.sqlite)(?:-wal|-shm)?$/.exec(entry.name);
    if (!entry.isFile() || !match) continue;
    const stats = await lstatOrNull(path.join(sqliteHome, entry.name));
    sizes.set(match[1] as string, (sizes.get(match[1] as string) ?? 0) + (stats?.size ?? 0));
  }
  if (sizes.size === 0) return null;
  const listed = [...sizes.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([name, bytes]) => `${name} ${formatBytes(bytes)}`);
  return `Codex's databases in ${sqliteHome} (with their WAL): ${listed.join(', ')}`;
}

/**
 * `packages/app-server-daemon/releases/<version>`: each release Codex's app server daemon
 * downloaded, `current` naming the live one. The others are reported, never deleted: which of
 * them a running daemon still uses is its own to say.
 */
async function oldReleases(
  codexHome: string,
  basis: LocationBasis,
  kept: (folder: string, kind: Candidate['kind'], reason: string, detail: string) => Candidate,
): Promise<Candidate[]> {
  const releases = path.join(codexHome, 'packages', 'app-server-daemon', 'releases');
  // Listed only where every folder on the way is the home's owner's (rule 20).
  if (locate(releases, basis).state !== 'found') return [];
  const entries = await readdirOrEmpty(releases);
  const current = currentRelease(
    releases,
    entries.find((entry) => entry.name === 'current'),
  );
  if (current === null) return [];
  return entries
    .filter((entry) => entry.isDirectory() && entry.name !== 'current' && entry.name !== current)
    .map((entry) =>
      kept(
        path.join(releases, entry.name),
        'staging',
        'codex-release',
        `an older release of Codex's app server daemon; \`current\` names ${current}, the live one; remove it yourself once no daemon runs it`,
      ),
    )
    .sort((a, b) => (a.path ?? '').localeCompare(b.path ?? ''));
}

/** The release `current` names (a link to it, or a file holding its name); null where that cannot be told. */
function currentRelease(releases: string, entry: Dirent | undefined): string | null {
  if (!entry) return null;
  const file = path.join(releases, 'current');
  try {
    if (entry.isSymbolicLink()) return path.basename(readlinkSync(file));
    if (!entry.isFile()) return null;
    const named = readRegularFileSync(file, 4096)?.toString('utf8').trim().split('\n')[0]?.trim();
    return named ? path.basename(named) : null;
  } catch {
    return null;
  }
}
