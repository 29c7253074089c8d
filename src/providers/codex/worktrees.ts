import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext } from '../../provider-api/provider.js';
import type { RootStatus } from '../../model/types.js';
import { examineSetWorktrees } from '../../engines/git-worktree/examine.js';
import { newestWrite } from '../../engines/git-worktree/idle.js';
import { readWorktreeLink } from '../../engines/git-worktree/link.js';
import { scanNested } from '../../engines/git-worktree/nested.js';
import { gitWorktreeRemoval } from '../../engines/git-worktree/remove.js';
import { isInside } from '../../safety/inside.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { sameIdentity, type Identity, type Resolution } from '../../safety/identity/resolve.js';
import type { ProcessTable } from '../../safety/processes/processes.js';
import { createTreeCache } from '../../safety/walk/tree-cache.js';
import { isPlainObject } from '../../util/plain-object.js';
import { judgeCodexWorktree, type ThreadEvidence, type ThreadFinding } from './judge.js';
import { identityOf, liesIn, mayOverlap, resolveRecorded } from '../../safety/identity/recorded.js';
import { THREAD_ID, type CodexHome } from './layout.js';
import type { HomeReading } from './sources.js';
import { probeWriter, type WriterState } from './threads.js';

export interface WorktreeContext {
  codex: CodexHome;
  homeOwner: Owner;
  /** The roots the app's worktrees are in (`$CODEX_HOME/worktrees`, config.toml's git-worktree-root). */
  roots: string[];
  /** The `codex` worktree set's idleAfter. */
  idleAfterMs: number;
  /** Every Codex home the pass found, read once for the pass: each may own a worktree in a root it shares. */
  sources: () => HomeReading[];
  /** The same, found and read anew: for the re-check right before a removal. */
  sourcesAgain: (processes: ProcessTable) => HomeReading[];
}

/**
 * The app's worktrees, `<root>/<4-hex>/<repo>`, each judged with the thread that owns it (its
 * admin folder's codex-thread.json, and the rows whose cwd is in it) and the worktree engine, as
 * the worktrees provider judges a set's.
 */
export async function worktreeCandidates(
  wc: WorktreeContext,
  ctx: GatherContext,
): Promise<{ roots: RootStatus[]; candidates: Candidate[] }> {
  const roots: RootStatus[] = [];
  const found: Array<{ worktree: string; root: string }> = [];
  const listed: Identity[] = [];
  for (const root of wc.roots) {
    const located = locate(root, basisFor(root, wc));
    if (located.state === 'absent') continue;
    if (located.state !== 'found') {
      roots.push({ provider: 'codex', root, ok: false, error: located.detail });
      continue;
    }
    // config.toml's git-worktree-root may name the default root by another path (through a link).
    const self = identityOf(root);
    if (self && listed.some((each) => sameIdentity(each, self))) continue;
    if (self) listed.push(self);
    try {
      for (const worktree of await worktreesUnder(root, wc)) found.push({ worktree, root });
      roots.push({ provider: 'codex', root, ok: true });
    } catch (err) {
      roots.push({ provider: 'codex', root, ok: false, error: `cannot list ${root}: ${errorMessage(err)}` });
    }
  }
  if (found.length === 0) return { roots, candidates: [] };

  const sources = wc.sources();
  const resolved = new RecordedPaths();
  const nowMs = ctx.now.getTime();
  const threads = found.map(({ worktree, root }) => {
    const seen = threadsOf(worktree, root, sources, wc, resolved);
    return seen.state === 'known' ? withWriters(seen, sources) : seen;
  });
  roots.push(...unreadableSources(sources, wc, [...new Set(found.map(({ root }) => root))], resolved));
  const policies = threads.map((thread) => ({
    set: 'codex',
    idleAfterMs: endedThreads(thread) ? 0 : wc.idleAfterMs,
    nowMs,
  }));
  const examined = await examineSetWorktrees(
    found.map(({ worktree }, k) => ({
      worktree,
      policy: policies[k] as (typeof policies)[number],
      owner: wc.homeOwner,
    })),
    ctx,
  );
  const candidates = found.map(({ worktree, root }, k): Candidate => {
    const { evidence, newest, nested } = examined[k] as (typeof examined)[number];
    const judgement = judgeCodexWorktree(evidence, newest, nested, threads[k] as ThreadEvidence, {
      idleAfterMs: wc.idleAfterMs,
      nowMs,
    });
    const candidate: Candidate = {
      provider: 'codex',
      kind: 'worktree',
      path: worktree,
      root,
      judgement,
      homeOwner: wc.homeOwner,
    };
    if (evidence.state !== 'linked') return candidate;
    candidate.alsoWatch = [evidence.link.adminDir];
    if (judgement.decision === 'delete')
      candidate.removal = gitWorktreeRemoval({
        judged: evidence,
        // Every home found and read again, and each thread's writer lock taken as Codex probes it, right before.
        rejudge: async (fresh, guard) => {
          const again = wc.sourcesAgain(guard.lookAtProcesses());
          const seen = threadsOf(worktree, root, again, wc, new RecordedPaths());
          const thread = seen.state === 'known' ? await probedWriters(seen, again) : seen;
          const link = fresh.state === 'linked' ? fresh.link : null;
          // A fresh walk: the one the plan was made on may be minutes old.
          const measure = createTreeCache();
          return judgeCodexWorktree(
            fresh,
            link ? newestWrite([link.path, link.adminDir], measure) : { ms: null },
            link ? scanNested(link.path, measure) : { ok: false, error: fresh.path },
            thread,
            { idleAfterMs: wc.idleAfterMs, nowMs: Date.now() },
          );
        },
      });
    return candidate;
  });
  return { roots, candidates };
}

/** The root's owner is the home's: inside the home by its path, else by the home's owner (named by their config.toml). */
function basisFor(root: string, wc: WorktreeContext): LocationBasis {
  return isInside(wc.codex.home, root) ? wc.codex.basis : { owner: wc.homeOwner, of: `the owner of ${wc.codex.home}` };
}

/** `<root>/<id>/<repo>`: the real folders with a `.git` file two levels down, each id folder located (rule 20). */
async function worktreesUnder(root: string, wc: WorktreeContext): Promise<string[]> {
  const worktrees: string[] = [];
  for (const entry of await readdirOrEmpty(root)) {
    if (!entry.isDirectory()) continue;
    const id = path.join(root, entry.name);
    if (locate(id, basisFor(id, wc)).state !== 'found') continue;
    for (const child of await readdirOrEmpty(id)) {
      if (!child.isDirectory()) continue;
      const worktree = path.join(id, child.name);
      if ((await lstatOrNull(path.join(worktree, '.git')))?.isFile()) worktrees.push(worktree);
    }
  }
  return worktrees.sort();
}

const endedThreads = (thread: ThreadEvidence): boolean =>
  thread.state === 'known' && thread.threads.every((each) => each.row === null || each.row.archived);

/** Larger than any metadata Codex writes; a bigger file is not Codex's. */
const MAX_METADATA_BYTES = 64 * 1024;

/** The thread codex-thread.json (or an older codex-worktree.json) in the worktree's admin folder names. */
function ownerThreadOf(worktree: string): { id: string | null } | { error: string } {
  const link = readWorktreeLink(worktree);
  if (!link.ok) return { id: null };
  for (const name of ['codex-thread.json', 'codex-worktree.json']) {
    const file = path.join(link.link.adminDir, name);
    let value: unknown;
    try {
      const bytes = readRegularFileSync(file, MAX_METADATA_BYTES);
      if (!bytes) continue;
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      return { error: `Codex's ${file} cannot be read: ${errorMessage(err)}` };
    }
    const id = isPlainObject(value) ? value.ownerThreadId : undefined;
    if (typeof id === 'string' && THREAD_ID.test(id)) return { id };
    if (id !== undefined && id !== null) return { error: `Codex's ${file} names no thread id Codex makes` };
  }
  return { id: null };
}

/** A worktree's threads as Codex's records tie them to it, before their writer locks are looked at. */
type ThreadsSeen = Exclude<ThreadEvidence, { state: 'known' }> | { state: 'known'; threads: ThreadTie[] };
type ThreadTie = Omit<ThreadFinding, 'writer'>;

/**
 * The threads of a worktree in `root`: the one its codex-thread.json names, and each whose row's
 * cwd is the worktree or lies in it (by text, and by identity: rule 25), in every home the pass
 * read. A home of the worktree's owner that may keep worktrees in this root and cannot be read
 * leaves nothing to conclude (rule 27).
 */
function threadsOf(
  worktree: string,
  root: string,
  sources: readonly HomeReading[],
  wc: WorktreeContext,
  resolved: RecordedPaths,
): ThreadsSeen {
  const ownerUid = wc.homeOwner.uid;
  const blind = sharingUnreadable(root, sources, wc, resolved);
  if (blind)
    return {
      state: 'unreadable',
      detail: `Codex home ${blind.found.codexHome} (${blind.found.foundBy.join('; ')}) may keep worktrees in ${root} too, and ${blind.detail}`,
    };
  const owner = ownerThreadOf(worktree);
  if ('error' in owner) return { state: 'unreadable', detail: owner.error };
  const self = identityOf(worktree);
  if (self === null) return { state: 'unreadable', detail: `${worktree} cannot be looked at` };
  const ties = new Map<string, ThreadTie>();
  const tie = (id: string, via: ThreadTie['via'], note?: string) => {
    if (ties.has(id)) return;
    const found = rowsOf(id, sources);
    const homes = [...new Set(found.map((each) => each.home))];
    ties.set(id, {
      id,
      via,
      row: merged(found.map((each) => each.row)),
      ...(note ? { note } : {}),
      // Named where a row is in another home than the one whose worktrees these are.
      ...(homes.some((home) => home !== wc.codex.codexHome) ? { homes } : {}),
    });
  };
  if (owner.id) tie(owner.id, 'codex-thread.json');
  for (const home of sources) {
    if (home.state !== 'read') continue;
    const uid = home.found.ownerUid ?? ownerUid;
    for (const database of home.databases)
      for (const row of database.rows) {
        if (isInside(worktree, row.cwd)) {
          tie(row.id, 'cwd');
          continue;
        }
        const where = resolved.of(row.cwd, uid);
        if (!liesIn(self, where)) continue;
        if (where.state === 'unknown')
          tie(row.id, 'cwd-unresolved', `its cwd ${row.cwd} cannot be resolved (${where.why}), so it may be there`);
        else tie(row.id, 'cwd');
      }
  }
  return ties.size === 0 ? { state: 'unbound' } : { state: 'known', threads: [...ties.values()] };
}

/** The first home of the worktree's owner (or of no known owner) that may share `root` and cannot be read. */
function sharingUnreadable(
  root: string,
  sources: readonly HomeReading[],
  wc: WorktreeContext,
  resolved: RecordedPaths,
): Extract<HomeReading, { state: 'unreadable' }> | null {
  const ownerUid = wc.homeOwner.uid;
  const here = resolved.of(root, ownerUid);
  for (const home of sources) {
    if (home.state !== 'unreadable') continue;
    const theirs = home.found.ownerUid === null || home.found.ownerUid === ownerUid;
    if (!theirs && home.found.codexHome !== wc.codex.codexHome) continue;
    if (home.roots === null || here.state !== 'found') return home;
    const uid = home.found.ownerUid ?? ownerUid;
    if (home.roots.some((each) => mayOverlap(here, resolved.of(each, uid)))) return home;
  }
  return null;
}

/** Each unreadable home that may share one of these roots, as a root that is not ok, saying why. */
function unreadableSources(
  sources: readonly HomeReading[],
  wc: WorktreeContext,
  roots: readonly string[],
  resolved: RecordedPaths,
): RootStatus[] {
  const statuses: RootStatus[] = [];
  for (const home of sources) {
    if (home.state !== 'unreadable') continue;
    const shared = roots.filter((root) => sharingUnreadable(root, [home], wc, resolved) !== null);
    if (shared.length === 0) continue;
    statuses.push({
      provider: 'codex',
      root: home.where,
      ok: false,
      error: `${home.detail}; Codex home ${home.found.codexHome} (${home.found.foundBy.join('; ')}) may keep worktrees in ${shared.join(', ')}, so they are refused`,
    });
  }
  return statuses;
}

/** A thread's rows in every home read, with the home each is in. */
function rowsOf(id: string, sources: readonly HomeReading[]) {
  const rows: Array<{ home: string; row: NonNullable<ThreadFinding['row']> }> = [];
  for (const home of sources) {
    if (home.state !== 'read') continue;
    for (const database of home.databases) {
      const row = database.byId.get(id);
      if (row)
        rows.push({
          home: home.found.codexHome,
          row: { archived: row.archived, archivedAtMs: row.archivedAtMs, updatedAtMs: row.updatedAtMs },
        });
    }
  }
  return rows;
}

/** One row for a thread several homes know: archived only where every one says so, its latest times. */
function merged(rows: ReadonlyArray<NonNullable<ThreadFinding['row']>>): ThreadFinding['row'] {
  if (rows.length === 0) return null;
  const latest = (values: Array<number | null>) =>
    values.reduce<number | null>((max, each) => (each !== null && (max === null || each > max) ? each : max), null);
  return {
    archived: rows.every((row) => row.archived),
    archivedAtMs: latest(rows.map((row) => row.archivedAtMs)),
    updatedAtMs: latest(rows.map((row) => row.updatedAtMs)),
  };
}

/** Each thread's writer, as the plan sees the locks of every home read: live in any of them is live. */
function withWriters(seen: Extract<ThreadsSeen, { state: 'known' }>, sources: readonly HomeReading[]): ThreadEvidence {
  return {
    state: 'known',
    threads: seen.threads.map((each) => ({
      ...each,
      writer: strongest(sources.flatMap((home) => (home.state === 'read' ? [home.writers(each.id)] : []))),
    })),
  };
}

/** The same, each thread's writer lock taken in every home as Codex probes it: for the re-check right before the removal. */
async function probedWriters(
  seen: Extract<ThreadsSeen, { state: 'known' }>,
  sources: readonly HomeReading[],
): Promise<ThreadEvidence> {
  const threads: ThreadFinding[] = [];
  for (const each of seen.threads) {
    const writers: WriterState[] = [];
    for (const home of sources)
      if (home.state === 'read') writers.push(await probeWriter(home.found.codexHome, each.id));
    threads.push({ ...each, writer: strongest(writers) });
  }
  return { state: 'known', threads };
}

/** Live anywhere is live; else a lock that cannot be told leaves it unknown. */
function strongest(writers: readonly WriterState[]): WriterState {
  return (
    writers.find((each) => each.state === 'live') ??
    writers.find((each) => each.state === 'unknown') ?? { state: 'free' }
  );
}

/** Recorded paths resolved once for the pass: many rows share a cwd. */
class RecordedPaths {
  private readonly known = new Map<string, Resolution>();

  of(recorded: string, uid: number): Resolution {
    const key = `${uid}\0${recorded}`;
    let found = this.known.get(key);
    if (!found) {
      found = resolveRecorded(recorded, uid);
      this.known.set(key, found);
    }
    return found;
  }
}
