import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/pass.js';
import { itemAt, pass } from '../helpers/pass.js';
import { waitFor } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import { adminDirOf, expectOnlyTargetsTouched } from './support/compare.js';
import { mixedHome, ownEnv, type MixedHome } from './support/mixed-home.js';

/**
 * Issue 6, case 4 (databases): owl.db and kilo.db empty, cut in half, overwritten with random
 * bytes, garbage behind a valid SQLite header, locked by an exclusive writer, and huge. A database
 * that cannot be read fails its provider closed (rule 1): its items are refused, its quarantines
 * are still finished (rule 11), the other providers go on; a huge one is simply read.
 */

const HUGE = Number(process.env.AJ_HUGE_ROWS ?? 50_000);
const HOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support', 'db-holder.mjs');

type Corruption = (file: string) => void;
const CORRUPTIONS: Record<string, Corruption> = {
  empty: (file) => truncateSync(file, 0),
  'cut in half': (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
  'random bytes': (file) => writeFileSync(file, randomBytes(statSync(file).size)),
  'a valid header, then garbage': (file) => {
    const bytes = readFileSync(file);
    randomBytes(bytes.length - 100).copy(bytes, 100);
    writeFileSync(file, bytes);
  },
};

/**
 * What the pass may remove in a mixed home, read before the pass: every dead item but those of
 * `failing`, and every quarantine. Owl's worktree goes with its admin entry and worktree-config.
 */
function expectedTargets(h: MixedHome, failing: 'owl' | 'kilo' | null): string[] {
  const targets = [h.watchfire.dead];
  if (h.owl) {
    targets.push(h.owl.quarantine);
    if (failing !== 'owl') targets.push(h.owl.done, adminDirOf(h.owl.done) as string, h.owl.config(1));
  }
  if (h.kilo) {
    targets.push(h.kilo.quarantine);
    if (failing !== 'kilo') targets.push(h.kilo.dead);
  }
  return targets.map(h.key);
}

function scratchOf(h: MixedHome): (key: string) => boolean {
  const locks = h.kilo ? h.key(path.join(h.kilo.state, 'locks')) : null;
  return (key) =>
    /\.db-(wal|shm|journal)$/.test(key) || (locks !== null && (key === locks || key.startsWith(`${locks}${path.sep}`)));
}

function expectFailedClosed(h: MixedHome, result: PassResult, failing: 'owl' | 'kilo'): void {
  const { report } = result;
  expect(result.exitCode).toBe(1);
  const source = failing === 'owl' ? h.owl : h.kilo;
  if (!source) throw new Error(`${failing} is not installed in this home`);
  const status = report.providers.find((entry) => entry.provider === failing && entry.root === source.data);
  expect(status?.ok, JSON.stringify(report.providers)).toBe(false);
  expect(status?.error).toMatch(/\S/);
  const dead = h.owl && failing === 'owl' ? h.owl.done : (h.kilo?.dead as string);
  expect(itemAt(report, dead).verdict).toBe('refused');
  expect(itemAt(report, source.quarantine)).toMatchObject({ kind: 'quarantine', verdict: 'deleted' });
  expect(itemAt(report, h.watchfire.dead).verdict).toBe('deleted');
}

const only = (provider: 'owl' | 'kilo') => ({ owl: provider === 'owl', kilo: provider === 'kilo' });
const dbOf = (h: MixedHome, provider: 'owl' | 'kilo') => (provider === 'owl' ? h.owl?.db : h.kilo?.db) as string;

describe('unreadable and huge databases', () => {
  for (const provider of ['owl', 'kilo'] as const) {
    it.each(Object.entries(CORRUPTIONS))(
      `${provider}: a database %s fails that provider alone; quarantines are still finished`,
      async (_name, corrupt) => {
        const h = mixedHome(tempDir('aj-db-'), only(provider));
        corrupt(dbOf(h, provider));
        const targets = expectedTargets(h, provider);
        const before = h.snapshot();

        const result = await pass({ dir: h.runDir, config: h.config, env: ownEnv(h) });

        expectFailedClosed(h, result, provider);
        expectOnlyTargetsTouched(before, h.snapshot(), { targets, scratch: scratchOf(h) });
      },
    );

    it.each(['exclusive', 'wal-exclusive'])(
      `${provider}: a database held by an exclusive writer (%s) fails that provider alone, within seconds`,
      async (mode) => {
        const h = mixedHome(tempDir('aj-db-'), only(provider));
        const targets = expectedTargets(h, provider);
        const holder = spawn(process.execPath, [HOLDER, dbOf(h, provider), mode], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        try {
          let out = '';
          holder.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          await waitFor(() => out.includes('ready'));
          const before = h.snapshot();
          const started = Date.now();

          const result = await pass({ dir: h.runDir, config: h.config, env: ownEnv(h) });

          expect(Date.now() - started).toBeLessThan(30_000);
          expectFailedClosed(h, result, provider);
          expectOnlyTargetsTouched(before, h.snapshot(), { targets, scratch: scratchOf(h) });
        } finally {
          holder.kill('SIGKILL');
        }
      },
    );
  }

  it(`reads a huge owl.db (${HUGE} jobs) and a huge kilo.db (${HUGE} sessions) and deletes what they prove dead`, async () => {
    const h = mixedHome(tempDir('aj-db-'));
    if (!h.owl || !h.kilo) throw new Error('both are installed');
    const { owl: o, kilo: k } = h;
    const owl = new Database(o.db);
    owl.transaction(() => {
      const job = owl.prepare(
        `INSERT INTO jobs (id, source, source_ref, project, prompt, state, created, branch, worktree) VALUES (?, 'manual', ?, 'app', ?, 'done', '2026-01-02T00:00:00.000000000Z', ?, ?)`,
      );
      for (let id = 1000; id < 1000 + HUGE; id += 1)
        job.run(id, `ref-${id}`, 'p'.repeat(200), `owl/job-${id}`, path.join(o.data, 'worktrees', String(id)));
    })();
    owl.close();
    const kilo = new Database(k.db);
    kilo.transaction(() => {
      const session = kilo.prepare(
        'INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, 0, 0)',
      );
      const projectId = path.basename(path.dirname(k.dead));
      for (let i = 0; i < HUGE; i += 1)
        session.run(
          `ses_${i}`,
          projectId,
          `slug-${i}`,
          path.join(k.repo, 'elsewhere', String(i)),
          't'.repeat(100),
          '7.7.9',
        );
    })();
    kilo.close();
    const targets = expectedTargets(h, null);
    const before = h.snapshot();

    const result = await pass({ dir: h.runDir, config: h.config, env: ownEnv(h) });

    expect(result.exitCode, JSON.stringify(result.report.providers)).toBe(0);
    for (const dead of [o.done, k.dead, h.watchfire.dead]) expect(itemAt(result.report, dead).verdict).toBe('deleted');
    expectOnlyTargetsTouched(before, h.snapshot(), { targets, scratch: scratchOf(h) });
  }, 120_000);
});
