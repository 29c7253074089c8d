import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeSandbox } from '../../../src/providers/claude-code/demo.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { slugOf } from './fixtures.js';

describe('the claude-code demo sandbox', () => {
  it('lays out a dead session (and its state past the retention period), a live one and an empty project folder; a report-only pass then a real pass reclaim the dead', async () => {
    const root = tempDir('aj-claude-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    const extras = await claudeCodeSandbox.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
    const run = (reportOnly: boolean) =>
      pass({
        dir: tempDir('aj-claude-demo-run-'),
        config: { homes: [home], minAge: '1h', ...extras?.config },
        only: ['claude-code'],
        reportOnly,
        env: { HOME: home, CLAUDE_CONFIG_DIR: '', XDG_CACHE_HOME: '' },
      });
    const verdicts = (items: ReadonlyArray<{ verdict: string; reason: string }>) =>
      items.map((item) => `${item.verdict} ${item.reason}`).sort();

    const before = inventory(root);
    const dry = await run(true);
    expect(diffInventories(before, inventory(root))).toEqual({ removed: [], changed: [], added: [] });
    expect(verdicts(dry.report.items)).toEqual([
      'kept claude-state-reported',
      'kept session-live',
      'would-delete project-folder-empty',
      'would-delete retention-expired',
      'would-delete retention-expired',
      'would-delete session-ended',
    ]);
    expect(dry.report.totals.wouldReclaimBytes).toBeGreaterThan(50_000);

    const real = await run(false);
    expect(real.exitCode).toBe(0);
    expect(verdicts(real.report.items)).toEqual([
      'deleted project-folder-empty',
      'deleted retention-expired',
      'deleted retention-expired',
      'deleted session-ended',
      'kept claude-state-reported',
      'kept session-live',
    ]);
    const claudeRoot = path.join(root, 'tmp', `claude-${process.getuid?.() ?? 0}`);
    expect(existsSync(path.join(claudeRoot, slugOf(path.join(root, 'projects', 'claude-shop'))))).toBe(false);
    expect(existsSync(path.join(claudeRoot, slugOf(path.join(root, 'projects', 'claude-app'))))).toBe(true);
    // The transcript the agent task's output linked to is untouched.
    const kept = diffInventories(before, inventory(root));
    const expired = ['home/.claude/debug', 'home/.claude/session-env'];
    expect(kept.changed.filter((entry) => !entry.startsWith('tmp/'))).toEqual(expired);
    expect(kept.removed.filter((entry) => !entry.startsWith('tmp/'))).toEqual([
      expect.stringMatching(/^home\/\.claude\/debug\/[0-9a-f-]+\.txt$/),
      expect.stringMatching(/^home\/\.claude\/session-env\/[0-9a-f-]+$/),
      expect.stringMatching(/^home\/\.claude\/session-env\/[0-9a-f-]+\/sessionstart-hook-0\.sh$/),
    ]);
    expect(lstatSync(path.join(home, '.claude', 'projects')).isDirectory()).toBe(true);
  });
});
