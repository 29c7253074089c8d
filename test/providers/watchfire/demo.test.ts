import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchfireSandbox } from '../../../src/providers/watchfire/demo.js';
import { daysAgo } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';

describe('watchfire demo sandbox', () => {
  it('lays out every state the rule tells apart, old enough for minAge 1h', async () => {
    const root = tempDir('aj-watchfire-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    const extras = await watchfireSandbox.build({ root, home, old: daysAgo(3) });
    // The file the demo has a live process hold open: in a deleted project's home, dead but for it.
    const held = extras?.heldOpen ?? [];
    expect(held).toHaveLength(1);
    const runaway = path.join(home, '.watchfire', 'codex-home', 'checkout-rewrite:task:#0009-retry-payments');
    expect(held[0]?.startsWith(`${runaway}${path.sep}`)).toBe(true);
    expect(statSync(held[0] as string).size).toBeGreaterThan(1024 * 1024);
    const runDir = path.join(root, 'run');
    mkdirSync(runDir);
    const config = { homes: [home], minAge: '1h', ...(extras ? extras.config : {}) };
    const before = inventory(root, { exclude: [runDir] });

    const dry = await pass({ dir: runDir, config, reportOnly: true, only: ['watchfire'] });

    expect(diffInventories(before, inventory(root, { exclude: [runDir] }))).toEqual({
      removed: [],
      changed: [],
      added: [],
    });
    expect(dry.exitCode).toBe(0);
    expect(dry.report.providers.map((p) => p.ok)).toEqual([true, true]);
    const outcomes = dry.report.items.map((item) => `${item.verdict} ${item.reason}`).sort();
    // Without its holder (only the demo starts one), the runaway's home is a deleted project's.
    expect(dry.report.items.find((item) => item.path === runaway)).toMatchObject({
      verdict: 'would-delete',
      reason: 'project-deleted',
    });
    expect(outcomes).toEqual([
      'kept session-running',
      'kept session-running',
      'unfinished session-interrupted',
      'unfinished transcript-not-exported',
      'would-delete failed-start',
      'would-delete failed-start',
      'would-delete project-deleted',
      'would-delete project-deleted',
      'would-delete project-deleted',
      'would-delete quarantine-leftover',
      'would-delete transcript-exported',
    ]);

    const real = await pass({ dir: runDir, config, only: ['watchfire'] });
    expect(real.report.totals).toMatchObject({ deleted: 7, kept: 2, unfinished: 2, refused: 0, failed: 0 });
    // The links' targets in the user's own config are all still there.
    const after = inventory(root, { exclude: [runDir] });
    for (const key of before.keys()) {
      if (
        key.startsWith(`home${path.sep}.codex`) ||
        key.startsWith(`home${path.sep}.config`) ||
        key.startsWith(`home${path.sep}.copilot`)
      ) {
        expect(after.get(key)).toEqual(before.get(key));
      }
    }
  });
});
