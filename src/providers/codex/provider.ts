import path from 'node:path';
import type { ClaimedFolder, SetContext } from '../../provider-api/provider.js';
import { errorMessage } from '../../model/errors.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { RootStatus } from '../../model/types.js';
import { readLockTable, type LockTable } from '../../safety/locks/flock.js';
import { locate } from '../../safety/owners/locations.js';
import type { ProcessTable } from '../../safety/processes/processes.js';
import { parseDuration } from '../../util/duration.js';
import { codexConfig } from './config.js';
import { codexDatabaseCandidates } from './databases.js';
import { codexHomes, marketplacesFolder, scratchRoot, stagingFolder, type CodexHome } from './layout.js';
import { foundCodexHomes } from './homes.js';
import { databaseBasis, readCodexSettings, threadDatabase, worktreeRoots } from './settings.js';
import { readHomes, type HomeReading } from './sources.js';
import { stagingCandidates } from './staging.js';
import { usageCandidates } from './usage.js';
import { worktreeCandidates } from './worktrees.js';

/**
 * Codex: its marketplace staging clones and backups, plugin clones, the app's worktrees, its SQLite
 * logs (checkpointed) and its superseded log databases.
 */
export const codexGather: Pick<Provider, 'gather' | 'claimedAreas' | 'claimedFolders'> = {
  claimedFolders: (ctx) =>
    codexConfig(ctx.config).enabled
      ? codexHomes(ctx).flatMap((codex): ClaimedFolder[] => [
          { owner: 'codex', folder: scratchRoot(codex.codexHome), whose: "Codex's marketplace and plugin clones" },
          ...(worktreeClaim(codex, ctx)?.roots ?? []).map((root) => ({
            owner: 'codex',
            folder: root,
            whose: "the Codex app's worktrees, judged with Codex's thread database",
            yields: 'codex',
          })),
        ])
      : [],
  async claimedAreas(ctx) {
    return codexHomes(ctx).flatMap((codex) => [
      { owner: 'codex', folder: scratchRoot(codex.codexHome) },
      ...(worktreeClaim(codex, ctx)?.roots ?? []).map((folder) => ({ owner: 'codex', folder })),
    ]);
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const roots: RootStatus[] = [];
    const candidates: Candidate[] = [];
    let locks: LockTable | null = null;
    let sources: HomeReading[] | null = null;
    const sourcesAgain = (processes: ProcessTable) =>
      readHomes(foundCodexHomes({ ...ctx, processes }), readLockTable());
    for (const codex of codexHomes(ctx)) {
      const located = locate(codex.codexHome, codex.basis);
      // Codex is not used in this home: nothing to say.
      if (located.state === 'absent') continue;
      // A link to a disk not mounted here, a folder that cannot be looked at: never as if absent (rule 27).
      if (located.state !== 'found') {
        roots.push({ provider: 'codex', root: codex.codexHome, ok: false, error: located.detail });
        continue;
      }
      const owner = located.owner;
      const settings = readCodexSettings(codex);
      roots.push(
        settings.state === 'unreadable'
          ? { provider: 'codex', root: codex.codexHome, ok: false, error: settings.error }
          : { provider: 'codex', root: codex.codexHome, ok: true },
      );
      try {
        locks ??= readLockTable();
        const tmp = locate(scratchRoot(codex.codexHome), codex.basis);
        if (tmp.state === 'refused' || tmp.state === 'unreadable')
          roots.push({ provider: 'codex', root: tmp.path, ok: false, error: tmp.detail });
        else if (tmp.state === 'found') {
          // Each folder between the home and the clones is the home's owner's, or it is not read (rule 20).
          const notRead = new Set<string>();
          for (const folder of [marketplacesFolder(codex.codexHome), stagingFolder(codex.codexHome)]) {
            const located = notRead.size > 0 ? null : locate(folder, codex.basis);
            if (located === null || located.state === 'found' || located.state === 'absent') {
              if (located === null) notRead.add(folder);
              continue;
            }
            notRead.add(folder);
            roots.push({ provider: 'codex', root: folder, ok: false, error: located.detail });
          }
          candidates.push(
            ...(await stagingCandidates(
              {
                codexHome: codex.codexHome,
                settings,
                rereadSettings: () => readCodexSettings(codex),
                locks,
                homeOwner: owner,
                notRead,
              },
              ctx,
            )),
          );
        }
        const claim = worktreeClaim(codex, ctx);
        if (claim) {
          const found = await worktreeCandidates(
            {
              codex,
              homeOwner: owner,
              roots: claim.roots,
              idleAfterMs: claim.idleAfterMs,
              sources: () => (sources ??= readHomes(foundCodexHomes(ctx), locks ?? readLockTable())),
              sourcesAgain,
            },
            ctx,
          );
          roots.push(...found.roots);
          candidates.push(...found.candidates);
        }
        const sqliteHome =
          settings.state === 'unreadable'
            ? codex.codexHome
            : path.dirname(threadDatabase(codex, settings.settings, ctx.env));
        candidates.push(...(await usageCandidates(codex.codexHome, codex.basis, sqliteHome, owner)));
      } catch (err) {
        ctx.log.error({ err, codexHome: codex.codexHome }, 'codex home not reconciled');
        roots.push({ provider: 'codex', root: codex.codexHome, ok: false, error: errorMessage(err) });
      }
    }
    try {
      candidates.push(...(await codexDatabaseCandidates(ctx, locks ?? readLockTable())));
    } catch (err) {
      ctx.log.error({ err }, "codex's databases not reconciled");
      roots.push({ provider: 'codex', root: ctx.homes.join(', '), ok: false, error: errorMessage(err) });
    }
    return { roots: distinct(roots), candidates };
  },
};

/** One status per root and error: several homes may find the same unreadable one. */
function distinct(roots: readonly RootStatus[]): RootStatus[] {
  const seen = new Set<string>();
  return roots.filter((root) => {
    const key = JSON.stringify([root.root, root.ok, root.error ?? null, root.warning ?? null]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The `codex` worktree set's switches: on while the worktrees provider and the set are both on, as
 * the worktrees provider answers for its own sets.
 */
function codexSetOn(ctx: SetContext): { idleAfterMs: number } | null {
  if (!codexConfig(ctx.config).enabled) return null;
  const set = ctx.registry
    .map((provider) => provider.worktreeSetSettings?.(ctx.config, 'codex'))
    .find((settings) => settings !== undefined);
  if (!set) return null;
  return { idleAfterMs: parseDuration(set.idleAfter) ?? DEFAULT_IDLE_AFTER_MS };
}

const DEFAULT_IDLE_AFTER_MS = 7 * 86_400_000;

interface WorktreeClaim {
  roots: string[];
  idleAfterMs: number;
}

/**
 * Whether this provider judges a Codex home's app worktrees, and where: it does where Codex keeps
 * its thread database (or where config.toml, which says where that is, cannot be read: then it
 * refuses them), while the `codex` set is on; elsewhere the set judges them as a tool with no
 * database to ask. Read from the disk each time it is asked, the same way for the claims and the
 * gathering, which reads that database with every other Codex home it finds.
 */
function worktreeClaim(codex: CodexHome, ctx: SetContext): WorktreeClaim | null {
  const set = codexSetOn(ctx);
  if (!set) return null;
  const read = readCodexSettings(codex);
  if (read.state === 'unreadable')
    return {
      roots: worktreeRoots(codex, { sqliteHome: null, worktreeRoot: null, marketplaces: new Map() }),
      ...set,
    };
  const database = threadDatabase(codex, read.settings, ctx.env);
  const basis = databaseBasis(codex, database);
  if (basis === null) return null;
  const located = locate(database, basis, 'file');
  if (located.state === 'absent') return null;
  // One that cannot be read is claimed too: the gathering refuses its worktrees, saying why.
  return { roots: worktreeRoots(codex, read.settings), ...set };
}
