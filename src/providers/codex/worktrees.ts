import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import type { Candidate, GatherContext, RootStatus } from '../../core/types.js';
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
import { createTreeCache } from '../../safety/walk/tree-cache.js';
import { isPlainObject } from '../../util/plain-object.js';
import { judgeCodexWorktree, type ThreadEvidence, type ThreadFinding } from './judge.js';
import { THREAD_ID, type CodexHome } from './layout.js';
import { probeWriter, readThreads, writerLocksSeen, type ThreadRecords, type WriterState } from './threads.js';

export interface WorktreeContext {
  codex: CodexHome;
  homeOwner: Owner;
  /** The roots the app's worktrees are in (`$CODEX_HOME/worktrees`, config.toml's git-worktree-root). */
  roots: string[];
  /** The thread database, or why it cannot be read. */
  database: string | { error: string };
  /** The `codex` worktree set's idleAfter. */
  idleAfterMs: number;
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
  for (const root of wc.roots) {
    const located = locate(root, basisFor(root, wc));
    if (located.state === 'absent') continue;
    if (located.state !== 'found') {
      roots.push({ provider: 'codex', root, ok: false, error: located.detail });
      continue;
    }
    try {
      for (const worktree of await worktreesUnder(root, wc)) found.push({ worktree, root });
      roots.push({ provider: 'codex', root, ok: true });
    } catch (err) {
      roots.push({ provider: 'codex', root, ok: false, error: `cannot list ${root}: ${errorMessage(err)}` });
    }
  }
  if (found.length === 0) return { roots, candidates: [] };

  const records = threadRecords(wc.database);
  if ('error' in records)
    roots.push({
      provider: 'codex',
      root: typeof wc.database === 'string' ? wc.database : wc.codex.codexHome,
      ok: false,
      error: records.error,
    });
  const nowMs = ctx.now.getTime();
  const writers = writerLocksSeen(wc.codex.codexHome);
  const threads = found.map(({ worktree }) => threadEvidence(worktree, records, writers));
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
        // Codex's record read again, and the thread's writer lock taken as Codex probes it, right before.
        rejudge: async (fresh) => {
          const thread = await probedThreadEvidence(worktree, threadRecords(wc.database), wc.codex.codexHome);
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

function threadRecords(database: string | { error: string }): ThreadRecords | { error: string } {
  if (typeof database !== 'string') return database;
  try {
    return readThreads(database);
  } catch (err) {
    return { error: errorMessage(err) };
  }
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

function threadEvidence(
  worktree: string,
  records: ThreadRecords | { error: string },
  writerOf: (thread: string) => WriterState,
): ThreadEvidence {
  if ('error' in records) return { state: 'unreadable', detail: records.error };
  const owner = ownerThreadOf(worktree);
  if ('error' in owner) return { state: 'unreadable', detail: owner.error };
  const threads: ThreadFinding[] = [];
  const add = (id: string, via: ThreadFinding['via']) => {
    if (threads.some((each) => each.id === id)) return;
    const row = records.byId.get(id) ?? null;
    threads.push({
      id,
      via,
      row: row && { archived: row.archived, archivedAtMs: row.archivedAtMs, updatedAtMs: row.updatedAtMs },
      writer: writerOf(id),
    });
  };
  if (owner.id) add(owner.id, 'codex-thread.json');
  for (const row of records.rows) if (isInside(worktree, row.cwd)) add(row.id, 'cwd');
  return threads.length === 0 ? { state: 'unbound' } : { state: 'known', threads };
}

/** The same, each thread's writer lock taken as Codex probes it: for the re-check right before the removal. */
async function probedThreadEvidence(
  worktree: string,
  records: ThreadRecords | { error: string },
  codexHome: string,
): Promise<ThreadEvidence> {
  const seen = threadEvidence(worktree, records, () => ({ state: 'free' }));
  if (seen.state !== 'known') return seen;
  const threads: ThreadFinding[] = [];
  for (const each of seen.threads) threads.push({ ...each, writer: await probeWriter(codexHome, each.id) });
  return { state: 'known', threads };
}
