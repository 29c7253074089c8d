import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kiloSandbox } from '../../../src/providers/kilo/demo.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { pinOf, refExists } from './fixtures.js';

describe('the kilo demo sandbox', () => {
  it('lays out every state of the rule, and a report-only pass then a real pass judge each one', async () => {
    const root = tempDir('aj-kilo-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    await kiloSandbox.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
    const work = tempDir('aj-kilo-demo-run-');
    const run = (reportOnly: boolean) =>
      pass({
        dir: work,
        config: { homes: [home], minAge: '1h' },
        only: ['kilo'],
        reportOnly,
        env: { HOME: home, XDG_DATA_HOME: '', XDG_STATE_HOME: '', KILO_DB: '' },
      });

    const before = inventory(root);
    const dry = await run(true);
    expect(diffInventories(before, inventory(root)).removed).toEqual([]);
    const verdicts = (items: typeof dry.report.items) =>
      items.map((item) => `${item.kind} ${item.verdict} ${item.reason}`).sort();
    expect(verdicts(dry.report.items)).toEqual(
      [
        'checkpoint-repo kept legacy-project-repo',
        'checkpoint-repo kept worktree-present',
        'checkpoint-repo kept worktree-present',
        'checkpoint-repo refused agent-manager-lists-worktree',
        'checkpoint-repo refused kilo-lock-held',
        'checkpoint-repo refused unmanaged-worktree',
        'checkpoint-repo refused worktree-still-registered',
        'checkpoint-repo would-delete worktree-removed',
        'checkpoint-repo would-delete worktree-removed',
        'git-garbage would-delete git-temporary',
        'quarantine would-delete kilo-delete-leftover',
        'quarantine would-delete quarantine-leftover',
      ].sort(),
    );

    const real = await run(false);
    expect(real.exitCode).toBe(0);
    const deleted = real.report.items.filter((item) => item.verdict === 'deleted');
    expect(deleted).toHaveLength(5);
    const garbage = deleted.find((item) => item.kind === 'git-garbage');
    expect(garbage?.path).toMatch(/\/objects\/pack\/tmp_pack_q7Hx2K$/);
    expect(garbage?.bytes).toBe(3 * 1024 * 1024 + 12);
    for (const item of deleted) expect(existsSync(item.path as string)).toBe(false);
    const repo = path.join(root, 'projects', 'shop');
    const seeded = deleted.find((item) => item.detail.includes('refs/kilo/materialize/'));
    expect(seeded).toBeDefined();
    expect(refExists(repo, pinOf(seeded?.path as string))).toBe(false);
    expect(
      real.report.items.filter((item) => item.verdict !== 'deleted').every((item) => existsSync(item.path as string)),
    ).toBe(true);
  });
});
