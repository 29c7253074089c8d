import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { RootStatus } from '../../model/types.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import { walCandidates } from '../../engines/sqlite-wal/candidates.js';
import { readdirSync } from '../../safety/fs/list.js';
import { lstatOrNullSync, type Stats } from '../../safety/fs/stat.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { copilotConfig } from './config.js';
import { foundCopilotHomes, type FoundHome } from './homes.js';
import { judgeLog, judgeSession, type LogFacts } from './judge.js';
import { copilotHomes, isCountedLog, logsFolder, PROCESS_LOG, sessionStateFolder, sessionStore } from './layout.js';
import { livenessOf } from './liveness.js';
import { readSessionState } from './sessions.js';

/** Copilot CLI: its logs past its own retention; its sessions reported. */
export const copilotGather: Pick<Provider, 'gather' | 'claimedAreas' | 'claimedFolders'> = {
  claimedFolders: (ctx) =>
    copilotConfig(ctx.config).enabled
      ? copilotHomes(ctx).flatMap((home) => [
          { owner: 'copilot', folder: logsFolder(home.dir), whose: "Copilot CLI's logs" },
          { owner: 'copilot', folder: sessionStateFolder(home.dir), whose: "Copilot CLI's sessions" },
        ])
      : [],
  async claimedAreas(ctx) {
    return copilotHomes(ctx).flatMap((home) => [
      { owner: 'copilot', folder: logsFolder(home.dir) },
      { owner: 'copilot', folder: sessionStateFolder(home.dir) },
    ]);
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const out: Gathering = { roots: [], candidates: [] };
    for (const home of foundCopilotHomes(ctx)) {
      if (home.unreachable) {
        out.roots.push({ provider: 'copilot', root: home.dir, ok: false, error: home.unreachable });
        continue;
      }
      const located = locate(home.dir, home.basis);
      // Copilot CLI is not used in this home: nothing to say.
      if (located.state === 'absent') continue;
      // A link to a disk not mounted here, another user's folder: never as if absent (rule 27).
      if (located.state !== 'found') {
        out.roots.push({ provider: 'copilot', root: home.dir, ok: false, error: located.detail });
        continue;
      }
      try {
        const root: RootStatus = { provider: 'copilot', root: home.dir, ok: true };
        out.candidates.push(...logCandidates(home, located.owner, root, ctx));
        out.candidates.push(...(await sessionCandidates(home, located.owner, root, ctx)));
        out.candidates.push(...sessionStoreLog(home.dir, located.owner, ctx));
        out.roots.push(root);
      } catch (err) {
        out.roots.push({ provider: 'copilot', root: home.dir, ok: false, error: errorMessage(err) });
      }
    }
    return out;
  },
};

/**
 * The write-ahead log of the home's `session-store.db` (SQLite, WAL mode, held open by every
 * Copilot CLI process), reclaimed by a checkpoint where no process holds it (src/engines/sqlite-wal/).
 */
function sessionStoreLog(dir: string, owner: Owner, ctx: GatherContext): Candidate[] {
  const database = locate(sessionStore(dir), { owner, of: `the owner of ${dir}` }, 'file');
  if (database.state !== 'found') return [];
  return walCandidates('copilot', [{ database: database.path, root: dir, homeOwner: owner, tool: 'Copilot CLI' }], ctx);
}

/** Every `process-*.log` of the home's `logs/`, each judged by Copilot's own rule. */
function logCandidates(home: FoundHome, owner: Owner, root: RootStatus, ctx: GatherContext): Candidate[] {
  const folder = logsFolder(home.dir);
  const located = locate(folder, home.basis);
  if (located.state === 'absent') return [];
  if (located.state !== 'found') {
    fail(root, located.detail);
    return [];
  }
  let names: string[];
  try {
    names = readdirSync(folder)
      .map((entry) => entry.name)
      .filter(isCountedLog);
  } catch (err) {
    fail(root, `${folder} cannot be listed: ${errorMessage(err)}`);
    return [];
  }
  const files: Array<{ file: string; stats: Stats }> = [];
  for (const name of names) {
    const file = path.join(folder, name);
    try {
      const stats = lstatOrNullSync(file);
      if (stats) files.push({ file, stats });
    } catch (err) {
      fail(root, `${file} cannot be looked at: ${errorMessage(err)}`);
      return [];
    }
  }
  // The rule counts and ranks regular files only; a link is never followed to read its age.
  const ranked = files.filter(({ stats }) => stats.isFile()).map(({ stats }) => stats.mtimeMs);
  const nowMs = ctx.now.getTime();
  return files.map(({ file, stats }): Candidate => {
    const match = PROCESS_LOG.exec(path.basename(file));
    const pid = match ? Number(match[2]) : null;
    const facts: LogFacts = {
      path: file,
      type: stats.isFile() ? 'file' : stats.isSymbolicLink() ? 'link' : 'other',
      mtimeMs: stats.mtimeMs,
      pid,
      writer: pid === null ? null : livenessOf(ctx.processes, pid),
      counted: ranked.length,
      newer: ranked.filter((mtime) => mtime > stats.mtimeMs).length,
    };
    return {
      provider: 'copilot',
      kind: 'owner-retention',
      path: file,
      root: home.dir,
      judgement: judgeLog(facts, nowMs),
      removal: { type: 'file' },
      homeOwner: owner,
    };
  });
}

/** Every `session-state/<id>/`, reported with its size, its name and whether a live process has it open. */
async function sessionCandidates(
  home: FoundHome,
  owner: Owner,
  root: RootStatus,
  ctx: GatherContext,
): Promise<Candidate[]> {
  const state = readSessionState(home);
  if (state.state === 'unreadable') fail(root, state.detail);
  if (state.state !== 'read') return [];
  ctx.measureAhead?.(state.sessions.map((session) => session.folder));
  const candidates: Candidate[] = [];
  for (const session of state.sessions) {
    let bytes: number | null = null;
    try {
      await ctx.whenMeasured?.([session.folder]);
      bytes = ctx.measure(session.folder).bytes;
    } catch {
      // Its size is unknown; the safety engine says why when it walks it.
    }
    const locks = session.lockPids.map((pid) => ({ pid, liveness: livenessOf(ctx.processes, pid) }));
    candidates.push({
      provider: 'copilot',
      kind: 'task-folder',
      path: session.folder,
      root: home.dir,
      judgement: judgeSession({ ...session, bytes, locks }),
      homeOwner: owner,
    });
  }
  return candidates;
}

/** A part of the home that cannot be read makes the home's root not ok; the rest is still judged. */
function fail(root: RootStatus, error: string): void {
  root.ok = false;
  root.error = root.error ? `${root.error}; ${error}` : error;
}
