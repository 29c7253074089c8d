import {
  existsSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { quarantinedName } from '../../src/safety/removal/quarantine.js';
import { runCli } from '../helpers/cli.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { spawnLiving, waitFor } from '../helpers/processes.js';
import { scratchPass } from '../helpers/scratch-provider.js';
import { tempDir } from '../helpers/temp.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { meddling, raceProvider, type RaceTarget } from './support/race-provider.js';
import { RENAMES, UNLINKS, renameDone, runHeldAt, straceAvailable } from './support/trace.js';
import { runArgs, world, type World } from './support/watchfire-world.js';

/**
 * Issue 6, case 3: what happens to a target between the plan and the delete, and while it is
 * deleted. Nothing outside the targets may ever be touched.
 */

/** A root with dead folders `first` and `second`, and an outside folder full of things to keep. */
function scene() {
  const dir = tempDir('aj-race-');
  const root = path.join(dir, 'root');
  const outside = path.join(dir, 'outside');
  const first = path.join(root, 'first');
  const second = path.join(root, 'second');
  put(path.join(first, 'notes.md'), 'first\n');
  put(path.join(second, 'transcript.jsonl'), '{"turn":1}\n');
  put(path.join(second, 'nested', 'deep.txt'), 'deep\n');
  put(path.join(outside, 'secret.txt'), 'must survive\n');
  put(path.join(outside, 'sub', 'keep.txt'), 'must survive too\n');
  backdate(dir, daysAgo(3));
  const reportDir = path.join(dir, 'report');
  return {
    dir,
    root,
    outside,
    first,
    second,
    reportDir,
    snapshot: () => inventory(dir, { exclude: [reportDir] }),
    key: (p: string) => path.relative(dir, p),
  };
}

/** The quarantine a pass made of `target`, while it exists. */
function quarantineOf(target: string): string | null {
  const name = readdirSync(path.dirname(target)).find((entry) => quarantinedName(entry) === path.basename(target));
  return name ? path.join(path.dirname(target), name) : null;
}

describe('races between the plan and the delete', () => {
  it('a target swapped for a link to a folder outside after it was judged is left alone, and so is the outside', async () => {
    const s = scene();
    const moved = path.join(s.dir, 'moved-away');
    const before = s.snapshot();
    const targets: RaceTarget[] = [
      {
        path: s.first,
        meddle: () => {
          renameSync(s.second, moved);
          symlinkSync(s.outside, s.second);
        },
      },
      { path: s.second },
    ];

    const { report, exitCode } = await scratchPass({
      provider: raceProvider(s.root, targets),
      reportDir: s.reportDir,
      onPlanned: meddling(targets),
    });

    // A re-check stopped it before anything was touched: refused, not failed (rule 23).
    expect(exitCode).toBe(0);
    expect(itemAt(report, s.first).verdict).toBe('deleted');
    expect(itemAt(report, s.second)).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(itemAt(report, s.second).detail).toMatch(/replaced after it was judged \(now a symlink\); left alone/);
    expect(readlinkSync(s.second)).toBe(s.outside);
    const after = s.snapshot();
    // The outside and the real folder the attacker moved away are byte for byte what they were.
    for (const [key, entry] of before) {
      if (key.startsWith(s.key(s.outside))) expect(after.get(key), key).toEqual(entry);
      if (key.startsWith(`${s.key(s.second)}${path.sep}`))
        expect(after.get(key.replace(s.key(s.second), s.key(moved)))?.hash).toEqual(entry.hash);
    }
    expect(existsSync(s.first)).toBe(false);
  });

  it('a process that starts inside a target after the plan keeps it: refused as in use, not deleted', async () => {
    const s = scene();
    const before = s.snapshot();
    let sleeper = 0;
    const targets: RaceTarget[] = [
      {
        path: s.first,
        meddle: async () => {
          const child = spawnLiving('sleep', ['600'], { cwd: path.join(s.second, 'nested') });
          sleeper = child.pid as number;
          await waitFor(
            () =>
              existsSync(`/proc/${sleeper}/cwd`) &&
              readlinkSync(`/proc/${sleeper}/cwd`) === path.join(s.second, 'nested'),
          );
        },
      },
      { path: s.second },
    ];

    const { report } = await scratchPass({
      provider: raceProvider(s.root, targets),
      reportDir: s.reportDir,
      onPlanned: meddling(targets),
    });

    expect(itemAt(report, s.first).verdict).toBe('deleted');
    expect(itemAt(report, s.second)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, s.second).detail).toContain(String(sleeper));
    expect(itemAt(report, s.second).detail).toContain('put back where it was');
    expectOnlyTargetsTouched(before, s.snapshot(), { targets: [s.key(s.first)] });
  });
});

describe.runIf(straceAvailable())('races while a pass deletes (the CLI held by strace at one system call)', () => {
  function deadHome(w: World): string {
    const files: Record<string, string> = { 'AGENTS.md': '# prompt\n' };
    for (const folder of ['alpha', 'beta'])
      for (let i = 0; i < 20; i += 1) files[`${folder}/${folder}-${i}.jsonl`] = `{"${folder}":${i}}\n`;
    const home = w.session('gone-project:chat', files);
    w.age();
    return home;
  }

  it('a folder inside the target swapped for a link mid-walk stops the delete there; the outside is untouched', async () => {
    const w = world();
    const home = deadHome(w);
    const before = w.snapshot();
    const stash = path.join(w.dir, 'stash');
    let swapped = '';
    const held = await runHeldAt(
      {
        label: 'first unlink inside alpha or beta',
        syscalls: UNLINKS,
        paths: ['alpha-0.jsonl', 'beta-0.jsonl'],
        at: 'enter',
      },
      3000,
      (line) => {
        // The walker is inside one folder; swap the other one, which it has looked at but not entered.
        const other = line.includes('alpha-0') ? 'beta' : 'alpha';
        const quarantine = quarantineOf(home) as string;
        swapped = path.join(quarantine, other);
        renameSync(swapped, stash);
        symlinkSync(w.outside, swapped);
      },
      runArgs(w),
      w.env,
      path.join(w.runDir, 'held.strace'),
    );
    expect(held.stoppedAt).not.toBeNull();
    const report = JSON.parse(held.result.stdout) as Report;
    const item = itemAt(report, home);
    // The remover's own identity check stopped it: what is left waits in quarantine for the next pass.
    expect(item).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(item.detail).toMatch(/not the folder that was looked at|swapped/);
    expect(item.detail).toContain('left in quarantine at');
    expect(readlinkSync(swapped)).toBe(w.outside);
    const outsideKeys = [...before.keys()].filter((key) => key.startsWith(w.key(w.outside)));
    const after = w.snapshot();
    for (const key of outsideKeys) expect(after.get(key), key).toEqual(before.get(key));
    expect(readdirSync(stash).length).toBe(20);

    // The planted link is a fresh write: the next pass leaves the quarantine while it is young…
    const soon = JSON.parse((await runCli(runArgs(w), { env: w.env })).stdout) as Report;
    expect(soon.items.find((entry) => entry.kind === 'quarantine')).toMatchObject({
      verdict: 'refused',
      reason: 'too-recent',
    });
    // …and once it is old, finishes it: it unlinks the link, never what the link points to.
    const old = daysAgo(1);
    lutimesSync(swapped, old, old);
    const later = JSON.parse((await runCli(runArgs(w), { env: w.env })).stdout) as Report;
    expect(later.items.find((entry) => entry.kind === 'quarantine')).toMatchObject({
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(quarantineOf(home)).toBeNull();
    const final = w.snapshot();
    for (const key of outsideKeys) expect(final.get(key), key).toEqual(before.get(key));
  });

  it('files written into a target while it is deleted go with it; the folder recreated at its old path is left alone', async () => {
    const w = world();
    const home = deadHome(w);
    const before = w.snapshot();
    await runHeldAt(
      {
        label: 'first unlink inside alpha or beta',
        syscalls: UNLINKS,
        paths: ['alpha-0.jsonl', 'beta-0.jsonl'],
        at: 'enter',
      },
      3000,
      () => {
        const quarantine = quarantineOf(home) as string;
        // Into the quarantine: its top level was already emptied, its other folder not yet.
        writeFileSync(path.join(quarantine, 'late-top.txt'), 'written during the delete\n');
        writeFileSync(path.join(quarantine, 'alpha', 'late-alpha.txt'), 'written during the delete\n');
        writeFileSync(path.join(quarantine, 'beta', 'late-beta.txt'), 'written during the delete\n');
        mkdirSync(path.join(quarantine, 'late-folder', 'inner'), { recursive: true });
        // An agent that knew the old path makes it again: a new folder, not the target.
        put(path.join(home, 'recreated.txt'), 'a new session\n');
      },
      runArgs(w),
      w.env,
      path.join(w.runDir, 'held.strace'),
    ).then((held) => {
      expect(held.stoppedAt).not.toBeNull();
      const report = JSON.parse(held.result.stdout) as Report;
      expect(itemAt(report, home).verdict).toBe('deleted');
    });
    expect(quarantineOf(home)).toBeNull();
    expect(readFileSync(path.join(home, 'recreated.txt'), 'utf8')).toBe('a new session\n');
    const after = w.snapshot();
    expect([...after.keys()].filter((key) => !before.has(key))).toEqual([w.key(path.join(home, 'recreated.txt'))]);
    expectOnlyTargetsTouched(before, after, {
      targets: [w.key(home)],
      scratch: (key) => key === w.key(path.join(home, 'recreated.txt')),
    });
  });

  it('a second pass started during the first exits 75 at once, one line on stderr, nothing on stdout, nothing touched', async () => {
    const w = world();
    const home = deadHome(w);
    const kept = w.session('also-gone:chat', { 'AGENTS.md': 'x' });
    w.age();
    const before = w.snapshot();
    let second: Awaited<ReturnType<typeof runCli>> | null = null;
    const held = await runHeldAt(
      { label: 'the first quarantine rename', syscalls: RENAMES, paths: [home, kept], at: 'exit', done: renameDone },
      // The second pass must be over well within the hold (runHeldAt fails it otherwise): it
      // did not wait for the first.
      10_000,
      async () => {
        const during = w.snapshot();
        second = await runCli(runArgs(w), { env: w.env });
        expect(w.snapshot()).toEqual(during);
      },
      runArgs(w),
      w.env,
      path.join(w.runDir, 'held.strace'),
    );
    const other = second as unknown as Awaited<ReturnType<typeof runCli>>;
    expect(other.code).toBe(75);
    expect(other.stdout).toBe('');
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
    expect(other.stderr).toMatch(/another agent-janitor pass holds .*run\.lock/);
    expect(held.result.code).toBe(0);
    expectOnlyTargetsTouched(before, w.snapshot(), { targets: [w.key(home), w.key(kept)] });
    expect(existsSync(home) || existsSync(kept)).toBe(false);
  });
});
