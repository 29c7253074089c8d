import { lutimesSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quarantinedName } from '../../src/safety/removal/quarantine.js';
import { crashAndRecover, crashBench, type KnownGap } from './support/crash-bench.js';
import { straceAvailable, UNLINKS } from './support/trace.js';

/**
 * Issue 6, case 1 (between the renames): a pass is killed in the middle of a large tree's delete,
 * inside `git worktree remove`, while it writes its report and before its first audit line; the
 * next pass must leave the state an uninterrupted pass leaves, and the killed pass must have
 * touched nothing but its targets.
 */

const bench = straceAvailable() ? await crashBench() : null;
afterAll(() => bench?.dispose());

const fleet = bench?.fleet;
const bigTreeQuarantine = (): string | null => {
  if (!fleet) return null;
  const folder = path.dirname(fleet.bigTree);
  const name = readdirSync(folder).find((entry) => quarantinedName(entry) === path.basename(fleet.bigTree));
  return name ? path.join(folder, name) : null;
};

describe.runIf(bench)('a pass killed between its renames is finished by the next', () => {
  it('killed in the middle of a large tree’s delete: the half-deleted quarantine is finished, aged by its files', async () => {
    if (!bench || !fleet) return;
    const middle = fleet.bigTreeFiles[Math.floor(fleet.bigTreeFiles.length / 2)] as string;
    const outcome = await crashAndRecover(bench, {
      label: 'in the middle of the big tree’s delete',
      syscalls: UNLINKS,
      paths: [middle],
      at: 'enter',
    });
    const quarantine = [...outcome.afterKill.keys()].filter((key) => key.includes('.retired-monolith:chat.cleanup-'));
    const files = quarantine.filter((key) => outcome.afterKill.get(key)?.type === 'file');
    // Part of the tree was already gone, part was left: a real half-deleted quarantine.
    expect(files.length).toBeGreaterThan(10);
    expect(files.length).toBeLessThan(fleet.bigTreeFiles.length);
    expect(
      outcome.next.items.find(
        (item) => item.kind === 'quarantine' && item.path?.includes('.retired-monolith:chat.cleanup-'),
      ),
    ).toMatchObject({ verdict: 'deleted' });
  });

  it('killed when a large tree has no file left, only a folder: the quarantine with no file to age it by is finished', async () => {
    if (!bench || !fleet) return;
    const outcome = await crashAndRecover(bench, {
      label: 'before the big tree’s last folder goes',
      syscalls: UNLINKS,
      paths: ['history'],
      at: 'enter',
      held: /rmdir\("history"/,
    });
    const left = [...outcome.afterKill].filter(([key]) => key.includes('.retired-monolith:chat.cleanup-'));
    expect(left.map(([, entry]) => entry.type)).toEqual(['dir', 'dir']);
    expect(bigTreeQuarantine()).toBeNull();
  });

  it('killed while it writes report.json: the old report stays whole, the next pass writes its own', async () => {
    if (!bench || !fleet) return;
    const outcome = await crashAndRecover(bench, {
      label: 'before the report is synced and renamed into place',
      syscalls: ['fsync'],
      paths: [],
      at: 'enter',
      held: /report\.json\.tmp-/,
    });
    expect(outcome.next.totals.deleted).toBe(0);
    // The killed pass's temp file stays in the report folder (outside the fleet); the report is whole.
    expect(readdirSync(fleet.reportDir).filter((name) => name.startsWith('report.json.tmp-'))).toHaveLength(1);
    const written = JSON.parse(readFileSync(path.join(fleet.reportDir, 'report.json'), 'utf8'));
    expect(written).toEqual(outcome.next);
  });

  it('killed before its first audit line: that one deletion goes unrecorded, the next pass records each of its own whole', async () => {
    if (!bench || !fleet) return;
    const outcome = await crashAndRecover(bench, {
      label: 'before the first audit line',
      syscalls: ['openat'],
      paths: [path.join(fleet.reportDir, 'audit.jsonl')],
      at: 'enter',
    });
    const audit = readFileSync(path.join(fleet.reportDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // Every line is whole, and each is a deletion the next pass made.
    expect(audit.map((line) => line.path).sort()).toEqual(
      outcome.next.items
        .filter((item) => item.verdict === 'deleted')
        .map((item) => item.path)
        .sort(),
    );
  });

  /**
   * Known gap, reported and not fixed here (src/engines/git-worktree/remove.ts): `git worktree remove` deletes
   * the tree in place, with no quarantine rename first, so a pass killed inside it leaves a
   * half-removed worktree. Its folders are new, so the next pass refuses it as too recent; later
   * its missing tracked files read as uncommitted changes, so it stays `unfinished` for a person.
   * Nothing outside the target is touched and no commit is lost; the tree is just not finished.
   */
  it('killed inside git worktree remove: nothing outside the target is touched; the remains wait for a person (known gap)', async () => {
    if (!bench || !fleet) return;
    const worktree = path.join(fleet.home, '.local', 'share', 'coding-owl', 'worktrees', '101');
    const relative = (p: string) => path.relative(fleet.fleet, p);
    const remains = [
      relative(worktree),
      relative(path.join(fleet.home, 'projects', 'webshop', '.git', 'worktrees', '101')),
      relative(path.join(fleet.home, '.local', 'share', 'coding-owl', 'worktree-config', '101')),
    ];
    // The executor runs up to GIT_CONCURRENCY `git worktree remove`s at once, so the kill may catch
    // another Owl worktree of the same round mid-removal too: its remains (what git had not yet
    // removed, its admin entry, its worktree-config folder) wait the same way.
    const sameRound = [
      relative(path.join(fleet.home, 'projects', 'webshop', '.git', 'worktrees')),
      relative(path.join(fleet.home, '.local', 'share', 'coding-owl', 'worktrees')),
      relative(path.join(fleet.home, '.local', 'share', 'coding-owl', 'worktree-config')),
    ];
    const gap: KnownGap = {
      why: 'a half-removed worktree stays, with any other of its round that git was removing',
      explains: (key) =>
        remains.some((r) => key === r || key.startsWith(`${r}${path.sep}`)) ||
        sameRound.some((folder) => key.startsWith(`${folder}${path.sep}`)),
    };
    const outcome = await crashAndRecover(
      bench,
      {
        label: 'inside git worktree remove, after its first folder went',
        syscalls: UNLINKS,
        paths: [path.join(worktree, 'README.md')],
        at: 'enter',
        held: /^\d+\s+unlink\(/,
      },
      { gaps: [gap] },
    );
    expect(existsSync(path.join(worktree, 'notes'))).toBe(false);
    expect(existsSync(path.join(worktree, '.git'))).toBe(true);
    expect(outcome.next.items.find((item) => item.path === worktree)).toMatchObject({
      verdict: 'refused',
      reason: 'too-recent',
    });
    // Once its emptied folders are old, the remains read as a tree with uncommitted changes.
    const old = new Date(Date.now() - 3 * 86_400_000);
    lutimesSync(worktree, old, old);
    const { runCli } = await import('../helpers/cli.js');
    const { cliArgs } = await import('./support/fleet.js');
    const later = JSON.parse((await runCli(cliArgs(fleet), { env: fleet.env })).stdout);
    expect(later.items.find((item: { path: string }) => item.path === worktree)).toMatchObject({
      verdict: 'unfinished',
      reason: 'uncommitted-changes',
    });
    expect(readFileSync(path.join(worktree, '.git'), 'utf8')).toContain('worktrees/101');
  });
});
