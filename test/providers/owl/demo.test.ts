import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { owlSandbox } from '../../../src/providers/owl/demo.js';
import { worktreesSandbox } from '../../../src/providers/worktrees/demo.js';
import { daysAgo } from '../../helpers/fs-fixtures.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { ownHomeEnv } from './env.js';

describe('demo sandboxes of owl and worktrees', () => {
  it('lay out every verdict of both rules, and a real pass settles them', async () => {
    const dir = tempDir();
    const root = path.join(dir, 'sandbox');
    const home = path.join(root, 'home');
    await owlSandbox.build({ root, home, old: daysAgo(3) });
    const extras = await worktreesSandbox.build({ root, home, old: daysAgo(3) });
    const config = { homes: [home], minAge: '1h', ...(extras?.config ?? {}) };

    const dry = await pass({ dir, config, only: ['owl', 'worktrees'], reportOnly: true, env: ownHomeEnv(home) });
    const seen = (report: typeof dry.report) =>
      new Set(report.items.map((item) => `${item.provider} ${item.verdict} ${item.reason}`));
    expect([...seen(dry.report)].sort()).toEqual([
      'owl kept job-open',
      'owl unfinished active-without-daemon',
      'owl unfinished review-overdue',
      'owl unfinished uncommitted-changes',
      'owl unfinished unique-commits',
      'owl would-delete job-cancelled',
      'owl would-delete job-done',
      'owl would-delete job-vanished',
      'owl would-delete orphan-worktree-config',
      'owl would-delete stale-admin-entry',
      'worktrees kept not-idle',
      'worktrees refused git-locked',
      'worktrees unfinished uncommitted-changes',
      'worktrees unfinished unique-commits',
      'worktrees would-delete idle-clean',
    ]);
    // Two of the sandbox's tools are found by their built-in sets alone: Claude Code through its
    // ~/.claude.json, the Codex app in ~/.codex/worktrees.
    const setsSeen = new Set(dry.report.items.map((item) => /^set ([a-z-]+) \(/.exec(item.detail)?.[1]));
    for (const set of ['claude-code', 'codex', 'vibe-kanban']) expect(setsSeen).toContain(set);
    const real = await pass({ dir, config, only: ['owl', 'worktrees'], env: ownHomeEnv(home) });
    expect(real.exitCode).toBe(0);
    expect(real.report.totals.deleted).toBe(dry.report.totals.wouldDelete);
    expect(real.report.totals.failed).toBe(0);
  });
});
