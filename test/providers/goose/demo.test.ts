import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gooseSandbox } from '../../../src/providers/goose/demo.js';
import { expectOnlyRemoved, expectUnchanged, verdictsOf } from '../../engines/vscode-storage/expect.js';
import { inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';

describe('the goose demo sandbox', () => {
  it('lays out every state of the rule, and a report-only pass then a real pass judge each one', async () => {
    const root = tempDir('aj-goose-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    await gooseSandbox.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
    const work = tempDir('aj-goose-demo-run-');
    const run = (reportOnly: boolean) =>
      pass({ dir: work, config: { homes: [home], minAge: '1h' }, only: ['goose'], reportOnly, env: { HOME: home } });

    const before = inventory(root);
    const dry = await run(true);
    expectUnchanged(before, inventory(root));
    expect(verdictsOf(dry.report)).toEqual(
      [
        'owner-retention kept goose-log-reported',
        'owner-retention kept goose-log-retained',
        'owner-retention would-delete goose-log-expired',
        'task-folder kept goose-sessions',
      ].sort(),
    );

    const real = await run(false);
    expect(real.exitCode).toBe(0);
    const deleted = real.report.items.filter((item) => item.verdict === 'deleted');
    expect(deleted.map((item) => path.relative(home, item.path as string))).toEqual([
      expect.stringMatching(/^\.local\/state\/goose\/logs\/cli\/\d{4}-\d{2}-\d{2}$/),
    ]);
    expectOnlyRemoved(root, before, inventory(root), [deleted[0]?.path as string]);
    for (const item of real.report.items.filter((entry) => entry.verdict !== 'deleted'))
      expect(existsSync(item.path as string)).toBe(true);
  });
});
