import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotSandbox } from '../../../src/providers/copilot/demo.js';
import { expectUnchanged, verdictsOf } from '../../engines/vscode-storage/expect.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';

describe('the copilot demo sandbox', () => {
  it('lays out every state of the rule, and a report-only pass then a real pass judge each one', async () => {
    const root = tempDir('aj-copilot-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    await copilotSandbox.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
    const work = tempDir('aj-copilot-demo-run-');
    const run = (reportOnly: boolean) =>
      pass({
        dir: work,
        config: { homes: [home], minAge: '1h' },
        only: ['copilot', 'worktrees'],
        reportOnly,
        env: { HOME: home },
      });

    const before = inventory(root);
    const dry = await run(true);
    expectUnchanged(before, inventory(root));
    expect(verdictsOf(dry.report)).toEqual(
      [
        'owner-retention would-delete log-retention',
        'owner-retention would-delete log-retention',
        'owner-retention would-delete log-retention',
        'owner-retention kept log-retained',
        'owner-retention kept log-writer-live',
        'task-folder kept copilot-session',
        'task-folder kept copilot-session',
        'task-folder kept copilot-session',
        'worktree kept session-in-use',
        'worktree would-delete idle-clean',
      ].sort(),
    );

    const real = await run(false);
    expect(real.exitCode).toBe(0);
    const deleted = real.report.items.filter((item) => item.verdict === 'deleted').map((item) => item.path as string);
    // The logs are named by their start, in epoch milliseconds: the pid is what tells them apart.
    const named = (item: string) => path.relative(root, item).replace(/process-\d+-/, 'process-<ms>-');
    expect(deleted.map(named).sort()).toEqual([
      'home/.copilot/logs/process-<ms>-999999001.log',
      'home/.copilot/logs/process-<ms>-999999002.log',
      'home/.copilot/logs/process-<ms>-999999003.log',
      'projects/app.worktrees/bump-deps',
    ]);
    const diff = diffInventories(before, inventory(root));
    expect(diff.added).toEqual([]);
    for (const item of real.report.items.filter((entry) => entry.verdict !== 'deleted'))
      expect(existsSync(item.path as string)).toBe(true);
  });
});
