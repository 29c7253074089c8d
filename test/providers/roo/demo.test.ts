import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rooSandbox } from '../../../src/providers/roo/demo.js';
import { inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { expectUnchanged, verdictsOf } from '../../engines/vscode-storage/expect.js';

describe('the roo demo sandbox', () => {
  it('lays out every state of the rule, and a report-only pass then a real pass judge each one', async () => {
    const root = tempDir('aj-roo-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    await rooSandbox.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
    const work = tempDir('aj-roo-demo-run-');
    const run = (reportOnly: boolean) =>
      pass({
        dir: work,
        config: { homes: [home], minAge: '1h' },
        only: ['roo'],
        reportOnly,
        env: { HOME: home, XDG_CONFIG_HOME: '' },
      });

    const before = inventory(root);
    const dry = await run(true);
    expectUnchanged(before, inventory(root));
    expect(verdictsOf(dry.report)).toEqual(
      [
        'checkpoint-repo kept task-in-history',
        'checkpoint-repo unfinished alive-legacy-format',
        'checkpoint-repo unfinished unknown-commits',
        'checkpoint-repo would-delete task-deleted',
        'checkpoint-repo would-delete task-deleted',
        'git-garbage would-delete git-temporary',
        'task-folder unfinished orphan-task-folder',
      ].sort(),
    );

    const real = await run(false);
    expect(real.exitCode).toBe(0);
    const deleted = real.report.items.filter((item) => item.verdict === 'deleted');
    expect(deleted).toHaveLength(3);
    for (const item of deleted) expect(existsSync(item.path as string)).toBe(false);
    for (const item of real.report.items.filter((entry) => entry.verdict !== 'deleted'))
      expect(existsSync(item.path as string)).toBe(true);
  });
});
