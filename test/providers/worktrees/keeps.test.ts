import path from 'node:path';
import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { stringify } from 'yaml';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import type { OwnerJudgement } from '../../../src/model/types.js';
import type { PassResult } from '../../../src/pass/pass.js';
import type { ProviderModule, WorktreeKeeper } from '../../../src/provider-api/provider.js';
import { PROVIDERS } from '../../../src/providers/registry.js';
import { reconcile } from '../../../src/reconcile/reconcile.js';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { addWorktree, expectOnly, makeRepo } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { tempDir } from '../../helpers/temp.js';

/** A tool's provider that gives a built-in set whose `keeps` answers `keeper`, or throws. */
function toolWith(root: string, keeps: () => Promise<WorktreeKeeper>): ProviderModule {
  return {
    name: 'keeper-tool',
    section: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
    reasons: { 'tool-session-live': ['kept', 'refused'] },
    sandbox: { name: 'keeper-tool', async build() {} },
    worktreeSets: [{ name: 'keeper-tool', tool: 'Keeper Tool', roots: [root], idleAfter: '3d', keeps }],
    async gather() {
      return { roots: [], candidates: [] };
    },
  };
}

async function passWith(tool: ProviderModule, dir: string, home: string): Promise<PassResult> {
  const registry = [...PROVIDERS, tool];
  const file = path.join(dir, 'agent-janitor.yaml');
  writeFileSync(file, stringify({ homes: [home], minAge: '1h', reportDir: path.join(dir, 'report') }));
  const config = await loadConfig({ providers: registry, file, env: { HOME: home } });
  const { report, exitCode } = await reconcile({
    config,
    providers: registry,
    only: ['worktrees'],
    reportOnly: false,
    log: pino({ level: 'silent' }),
    env: { HOME: home },
  });
  return { report, exitCode };
}

const verdictOf = (result: PassResult, p: string) => {
  const item = result.report.items.find((each) => each.path === p);
  return item ? `${item.verdict} ${item.reason}` : 'absent';
};

describe('worktrees: what a tool’s records keep beyond a set’s rule (`keeps`)', () => {
  function world() {
    const root = tempDir('aj-keeps-');
    const home = path.join(root, 'home');
    const repo = makeRepo(path.join(home, 'repo'));
    const trees = path.join(root, 'trees');
    const kept = addWorktree(repo, path.join(trees, 'kept'), 'kept');
    const free = addWorktree(repo, path.join(trees, 'free'), 'free');
    // Each branch's commit is main's: another ref holds it.
    backdate(root, daysAgo(10));
    return { root, home, trees, kept, free, work: tempDir('aj-keeps-run-') };
  }

  it('keeps the worktree the tool says it keeps, and lets the set’s rule judge the others', async () => {
    const w = world();
    const keep: OwnerJudgement = {
      decision: 'kept',
      reason: 'tool-session-live',
      detail: 'a live session works in it',
    };
    const before = inventory(w.root);

    const result = await passWith(
      toolWith(w.trees, async () => (worktree) => (worktree === w.kept ? keep : null)),
      w.work,
      w.home,
    );

    expect(verdictOf(result, w.kept)).toBe('kept tool-session-live');
    expect(verdictOf(result, w.free)).toBe('deleted idle-clean');
    const rel = (p: string) => path.relative(w.root, p);
    expectOnly(before, inventory(w.root), {
      removed: [rel(w.free), rel(path.join(w.home, 'repo', '.git', 'worktrees', 'free'))],
      changedDirs: [rel(w.trees), rel(path.join(w.home, 'repo', '.git', 'worktrees'))],
    });
  });

  it('refuses every worktree of the set when the tool’s records cannot be read', async () => {
    const w = world();
    const before = inventory(w.root);

    const result = await passWith(
      toolWith(w.trees, async () => {
        throw new Error('sessions folder is unreadable');
      }),
      w.work,
      w.home,
    );

    for (const tree of [w.kept, w.free]) expect(verdictOf(result, tree)).toBe('refused source-unreadable');
    expect(result.report.items.find((item) => item.path === w.free)?.detail).toContain(
      'what keeps the worktrees of set keeper-tool cannot be read: sessions folder is unreadable',
    );
    expectOnly(before, inventory(w.root), {});
  });
});
