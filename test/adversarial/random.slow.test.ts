import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inventory } from '../helpers/inventory.js';
import { pass } from '../helpers/pass.js';
import { tempDir } from '../helpers/temp.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { randomFleet } from './support/random-fleet.js';

/**
 * Issue 6, case 2: random machines (homes, Watchfire roots with live or dead daemons, agent
 * worktrees, Owl jobs, Kilo checkpoint repositories, hostile names) in random states. The
 * invariant: exactly the items whose state dooms them are gone, with what goes with them, and
 * every other byte remains.
 *
 * Seeds are fixed so CI is repeatable: `AJ_SEEDS=200` runs more, `AJ_SEED_BASE=n` shifts them,
 * `AJ_SEED=n` replays one.
 */

const count = Number(process.env.AJ_SEEDS ?? 8);
const base = Number(process.env.AJ_SEED_BASE ?? 20261130);
const seeds = process.env.AJ_SEED
  ? [Number(process.env.AJ_SEED)]
  : Array.from({ length: count }, (_, i) => base + i * 7919);

const FOREIGN = {
  HOME: '/nonexistent-home',
  XDG_DATA_HOME: '',
  XDG_STATE_HOME: '',
  XDG_CONFIG_HOME: '',
  XDG_RUNTIME_DIR: '',
  KILO_DB: '',
  OPENCODE_DB: '',
};

describe('random fleets', () => {
  it.each(seeds)('seed %i: exactly the doomed items are gone and every other byte remains', async (seed) => {
    const dir = tempDir('aj-random-');
    const fleet = await randomFleet(dir, seed);
    const key = (p: string) => path.relative(dir, p);
    const before = inventory(dir, { exclude: [fleet.runDir] });
    try {
      const { report } = await pass({ dir: fleet.runDir, config: fleet.config, env: FOREIGN });
      const after = inventory(dir, { exclude: [fleet.runDir] });
      const deleted = report.items.filter((item) => item.verdict === 'deleted').map((item) => item.path as string);
      const explain = (paths: string[]) =>
        paths.map(
          (p) =>
            `${key(p)} (${fleet.doomed.get(p) ?? fleet.spared.get(p) ?? 'not generated'}): ${report.items.find((item) => item.path === p)?.reason ?? 'no item'}`,
        );
      expect(explain(deleted.filter((p) => !fleet.doomed.has(p))), 'deleted, though its state should keep it').toEqual(
        [],
      );
      expect(
        explain([...fleet.doomed.keys()].filter((p) => !deleted.includes(p))),
        'left, though its state dooms it',
      ).toEqual([]);
      for (const p of fleet.doomed.keys()) expect(after.has(key(p)), `${key(p)} is gone`).toBe(false);
      for (const p of fleet.spared.keys()) expect(after.get(key(p))?.type, `${key(p)} is still there`).toBeDefined();
      const locks = fleet.lockRoots.map(key);
      expectOnlyTargetsTouched(before, after, {
        targets: [...fleet.doomed.keys(), ...fleet.alongside].map(key),
        scratch: (k) =>
          /\.db-(wal|shm)$/.test(k) || locks.some((lock) => k === lock || k.startsWith(`${lock}${path.sep}`)),
      });
    } catch (err) {
      const replay = `replay with: AJ_SEED=${seed} npx vitest run test/adversarial/random.test.ts`;
      (err as Error).message =
        `seed ${seed} failed (${replay})\n  ${fleet.summary.join('\n  ')}\n${(err as Error).message}`;
      throw err;
    }
  });
});
