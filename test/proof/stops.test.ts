import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Report } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { withProcessEnv } from '../helpers/process-env.js';
import { sh } from '../helpers/git-fixtures.js';
import { lateWriter } from './late-write.js';
import { DEAD_ITEMS, type DeadItem } from './scenes.js';

/**
 * Rule 23: a deletion that a re-check or git's own refusal stops is `refused` with the reason of
 * that check, or `unfinished` where git found changes, never `failed`: the exit code stays 0 and
 * the alert on failing deletions (agent_janitor_items{verdict="failed"}) stays quiet; a report-only
 * pass gives the same verdict for the same tree; nothing of the tree is lost.
 */

const WORKTREES = DEAD_ITEMS.filter(([label]) => label.includes(' worktree ') || label.endsWith(' worktree'));

const inside = (s: DeadItem, p: string) => (key: string) => {
  const relative = path.relative(s.world, p);
  return key === relative || key.startsWith(`${relative}${path.sep}`);
};

/** What of the worktree and its admin entry an inventory of the world holds. */
function worktreeKeys(s: DeadItem, inventoryOf: Map<string, unknown>): string[] {
  const mine = [inside(s, s.item), inside(s, s.adminDir as string)];
  return [...inventoryOf.keys()].filter((key) => mine.some((test) => test(key))).sort();
}

/** The `agent_janitor_items{verdict="failed"}` series of a metrics textfile that are above zero. */
function failingSeries(textfile: string): string[] {
  return readFileSync(textfile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('agent_janitor_items{') && line.includes('verdict="failed"'))
    .filter((line) => Number(line.split(' ').pop()) > 0);
}

describe('a stop is refused or unfinished, never failed (rule 23)', () => {
  for (const [label, build] of WORKTREES) {
    it(`${label}: an ignored file written while git status runs just before the delete stops it; refused, exit 0`, async () => {
      const s = build();
      const armed = path.join(s.run, 'armed');
      const writer = lateWriter(s.run, {
        file: path.join(s.item, 'session.log'),
        content: 'written during git status\n',
        when: ['status'],
        armedBy: armed,
      });
      let before = inventory(s.world);
      const { report, exitCode } = await withProcessEnv({ PATH: `${writer.bin}:${process.env.PATH}` }, () =>
        pass({
          dir: s.run,
          config: s.config,
          only: s.only,
          env: s.env,
          onPlanned: () => {
            before = inventory(s.world);
            writeFileSync(armed, '');
          },
        }),
      );

      expect(writer.wrote()).toBe(true);
      const item = itemAt(report, s.item);
      expect(item.verdict, item.detail).toBe('refused');
      expect(['not-idle', 'changed-during-inspection']).toContain(item.reason);
      expect(exitCode).toBe(0);
      expect(report.totals.failed).toBe(0);
      expect(readFileSync(path.join(s.item, 'session.log'), 'utf8')).toBe('written during git status\n');
      const after = inventory(s.world);
      expect(worktreeKeys(s, after)).toEqual(
        [...worktreeKeys(s, before), path.relative(s.world, path.join(s.item, 'session.log'))].sort(),
      );
    });

    it(`${label}: git worktree remove refusing the tree (a file written as git starts) is unfinished, exit 0`, async () => {
      const s = build();
      const writer = lateWriter(s.run, {
        file: path.join(s.item, 'notes.md'),
        content: 'an agent wrote this as git started\n',
        when: ['worktree', 'remove'],
      });
      const before = inventory(s.world);
      const { report, exitCode } = await withProcessEnv({ PATH: `${writer.bin}:${process.env.PATH}` }, () =>
        pass({ dir: s.run, config: s.config, only: s.only, env: s.env }),
      );

      expect(writer.wrote()).toBe(true);
      const item = itemAt(report, s.item);
      expect(item).toMatchObject({ verdict: 'unfinished', reason: 'uncommitted-changes' });
      expect(item.detail).toContain('git worktree remove refused it, nothing was removed');
      expect(exitCode).toBe(0);
      expect(report.totals.failed).toBe(0);
      expect(worktreeKeys(s, inventory(s.world))).toEqual(
        [...worktreeKeys(s, before), path.relative(s.world, path.join(s.item, 'notes.md'))].sort(),
      );
      expect(sh(s.repo as string, 'worktree', 'list', '--porcelain')).toContain(`worktree ${s.item}\n`);
    });

    it(`${label}: a core.worktree in config.worktree that fools a plain status: unfinished in both modes, never failed`, async () => {
      const s = build();
      // A clean copy of the tree elsewhere, that core.worktree then points a plain status at.
      const decoy = path.join(s.world, 'clean-decoy');
      mkdirSync(decoy);
      execFileSync('cp', ['-a', `${s.item}/.`, decoy]);
      rmSync(path.join(decoy, '.git'));
      sh(s.repo as string, 'config', 'extensions.worktreeConfig', 'true');
      sh(s.item, 'config', '--worktree', 'core.worktree', decoy);
      writeFileSync(path.join(s.item, 'draft.md'), 'the only copy of a draft\n');
      // A plain status, where the pass runs it, calls the worktree clean.
      expect(sh(s.item, 'status', '--porcelain')).toBe('');
      s.age();
      const before = inventory(s.world);
      const configFile = path.join(s.run, 'agent-janitor.yaml');
      const metrics = path.join(s.run, 'metrics.prom');
      writeFileSync(
        configFile,
        stringify({ ...s.config, reportDir: path.join(s.run, 'report'), metrics: { textfile: metrics } }),
      );
      const run = (extra: string[]) =>
        runCli(['run', '--config', configFile, '--only', s.only.join(','), '--json', ...extra], { env: s.env });

      const judged = await run(['--report-only']);
      const deleting = await run([]);

      for (const [mode, result] of [
        ['report-only', judged],
        ['delete', deleting],
      ] as const) {
        expect(result.code, `${mode}: ${result.stderr}`).toBe(0);
        const item = itemAt(JSON.parse(result.stdout) as Report, s.item);
        expect(item, mode).toMatchObject({ verdict: 'unfinished', reason: 'uncommitted-changes' });
        expect(failingSeries(metrics), mode).toEqual([]);
      }
      expect(readFileSync(path.join(s.item, 'draft.md'), 'utf8')).toBe('the only copy of a draft\n');
      expect(diffInventories(before, inventory(s.world)).removed).toEqual([]);
      expect(existsSync(s.adminDir as string)).toBe(true);
    });
  }
});
