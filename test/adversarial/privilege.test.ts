import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { quarantinedName } from '../../src/safety/removal/quarantine.js';
import { collect, runCli, type CliResult } from '../helpers/cli.js';
import { cliReachableByAnyone } from '../helpers/reachable-cli.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { runHeldAt, straceAvailable, UNLINKS } from './support/trace.js';
import { runArgs, world, type World } from './support/watchfire-world.js';

/**
 * Issue 6, case 5, and the unreadable folders of case 4: run as root over a home that belongs to
 * another uid, the delete runs with that user's uid and gid (src/safety/owners/owner.ts), so nothing the
 * owner could not remove is removed: not root's files behind a planted link, not a root-owned
 * folder inside the user's own target, not a root-owned folder swapped in mid-walk.
 */

const USER = 4242;
const isRoot = process.geteuid?.() === 0;

/** Hands the world's home (and the run folder, for a pass run as the user) to uid 4242. */
function giveHomeTo(w: World): void {
  chmodSync(w.dir, 0o755);
  chownTree(w.home, USER);
  chownTree(w.runDir, USER);
}

function chownTree(root: string, uid: number): void {
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    lchownSync(current, uid, uid);
    if (lstatSync(current).isDirectory())
      for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
}

/** A folder of root's with a root-owned file in it: what a user must never be made to delete. */
function rootsOwn(w: World): { dir: string; file: string } {
  const dir = path.join(w.dir, 'root-owned');
  const file = put(path.join(dir, 'shadow-alike'), 'root:secret\n');
  put(path.join(dir, 'sub', 'config'), 'root config\n');
  return { dir, file };
}

function runCliAs(uid: number, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = spawn(process.execPath, [cliReachableByAnyone(), ...args], {
    uid,
    gid: uid,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, 60_000);
}

function quarantineOf(target: string): string | null {
  const name = readdirSync(path.dirname(target)).find((entry) => quarantinedName(entry) === path.basename(target));
  return name ? path.join(path.dirname(target), name) : null;
}

describe.runIf(isRoot)('root over another user’s home', () => {
  it('unlinks the user’s links to root’s files, never the files; deletes the user’s own dead home whole', async () => {
    const w = world();
    const own = rootsOwn(w);
    const dead = w.session('gone:chat', { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': '{}\n' });
    symlinkSync(own.file, path.join(dead, 'link-to-root-file'));
    symlinkSync(own.dir, path.join(dead, 'sessions', 'link-to-root-dir'));
    w.age();
    giveHomeTo(w);
    const before = w.snapshot();

    const run = await runCli(runArgs(w), { env: w.env });

    expect(run.code, run.stderr).toBe(0);
    expect(itemAt(JSON.parse(run.stdout) as Report, dead)).toMatchObject({ verdict: 'deleted' });
    expectOnlyTargetsTouched(before, w.snapshot(), { targets: [w.key(dead)] });
    expect(readFileSync(own.file, 'utf8')).toBe('root:secret\n');
  });

  it('deletes the user’s dead home whole when the pass starts in a folder only root may enter (sudo -i, then a pass in /root)', async () => {
    const w = world();
    const dead = w.session('gone:chat', { 'AGENTS.md': '# prompt\n', 'sessions/deep/r.jsonl': '{}\n' });
    w.age();
    giveHomeTo(w);
    const privateFolder = path.join(w.dir, 'root-only');
    mkdirSync(privateFolder, { mode: 0o700 });
    const before = w.snapshot();

    const run = await runCli(runArgs(w), { env: w.env, cwd: privateFolder });

    expect(run.code, run.stderr).toBe(0);
    expect(itemAt(JSON.parse(run.stdout) as Report, dead)).toMatchObject({ verdict: 'deleted' });
    expect(quarantineOf(dead)).toBeNull();
    expectOnlyTargetsTouched(before, w.snapshot(), { targets: [w.key(dead)] });
  });

  it('refuses, untouched, a target holding a root-owned folder with its file (rule 20); the next pass refuses it the same way', async () => {
    const w = world();
    const own = rootsOwn(w);
    const dead = w.session('gone:chat', { 'AGENTS.md': '# prompt\n', 'sessions/r.jsonl': '{}\n' });
    w.age();
    giveHomeTo(w);
    // Root made this inside the user's folder; the user may not remove it (0755, root's file inside).
    const planted = path.join(dead, 'root-made');
    put(path.join(planted, 'root-file'), 'root wrote this\n');
    chmodSync(planted, 0o755);
    backdate(planted, daysAgo(3));
    backdate(path.dirname(planted), daysAgo(3));
    const before = w.snapshot();

    for (const label of ['first pass', 'next pass']) {
      const run = await runCli(runArgs(w), { env: w.env });
      expect(run.code, label).toBe(0);
      const item = itemAt(JSON.parse(run.stdout) as Report, dead);
      expect(item, label).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
      expect(item.detail).toContain(`${planted} belongs to uid 0, not to the item's owner (uid ${USER})`);
      // Not renamed, not entered: a deletion is never left half done.
      expect(quarantineOf(dead), label).toBeNull();
      expect(diffInventories(before, w.snapshot()), label).toEqual({ removed: [], changed: [], added: [] });
    }
    expect(readFileSync(path.join(planted, 'root-file'), 'utf8')).toBe('root wrote this\n');
    expect(lstatSync(planted).uid).toBe(0);
    expect(readFileSync(own.file, 'utf8')).toBe('root:secret\n');
  });

  it.runIf(straceAvailable())(
    'a folder the user swaps for a link to root’s folder mid-walk stops the delete; root’s folder is untouched',
    async () => {
      const w = world();
      const own = rootsOwn(w);
      const files: Record<string, string> = { 'AGENTS.md': '# prompt\n' };
      for (const folder of ['alpha', 'beta'])
        for (let i = 0; i < 10; i += 1) files[`${folder}/${folder}-${i}.jsonl`] = '{}\n';
      const dead = w.session('gone:chat', files);
      w.age();
      giveHomeTo(w);
      const rootBefore = w.snapshot();
      let swapped = '';
      const held = await runHeldAt(
        {
          label: 'first unlink in alpha or beta',
          syscalls: UNLINKS,
          paths: ['alpha-0.jsonl', 'beta-0.jsonl'],
          at: 'enter',
        },
        3000,
        (line) => {
          const other = line.includes('alpha-0') ? 'beta' : 'alpha';
          swapped = path.join(quarantineOf(dead) as string, other);
          // What the user (who owns the folder) can do: move their folder away, plant a link.
          renameSync(swapped, path.join(w.home, 'moved-away'));
          symlinkSync(own.dir, swapped);
          lchownSync(swapped, USER, USER);
        },
        runArgs(w),
        w.env,
        path.join(w.dir, 'held.strace'),
      );
      expect(held.stoppedAt).not.toBeNull();
      // A stop of the remover's own identity check, not a failure: what is left waits in quarantine.
      expect(itemAt(JSON.parse(held.result.stdout) as Report, dead)).toMatchObject({
        verdict: 'refused',
        reason: 'changed-during-inspection',
      });
      expect(readlinkSync(swapped)).toBe(own.dir);
      const after = w.snapshot();
      for (const [key, entry] of rootBefore)
        if (key.startsWith(w.key(own.dir))) expect(after.get(key), key).toEqual(entry);
      expect(readdirSync(path.join(w.home, 'moved-away'))).toHaveLength(10);
    },
  );

  it('an unreadable (0000) folder of the user’s inside a dead home: root can read it to judge, the user cannot empty it; refused untouched (rule 20)', async () => {
    const w = world();
    const dead = w.session('gone:chat', { 'AGENTS.md': '# prompt\n', 'locked/inside.txt': 'private\n' });
    w.age();
    giveHomeTo(w);
    chmodSync(path.join(dead, 'locked'), 0o000);
    backdate(path.join(dead), daysAgo(3));
    const before = w.snapshot();

    const run = await runCli(runArgs(w), { env: w.env });

    expect(run.code).toBe(0);
    const item = itemAt(JSON.parse(run.stdout) as Report, dead);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(item.detail).toContain(
      `${path.join(dead, 'locked')} is a folder its owner (uid ${USER}) cannot list, enter, empty`,
    );
    expect(quarantineOf(dead)).toBeNull();
    expect(diffInventories(before, w.snapshot())).toEqual({ removed: [], changed: [], added: [] });
    chmodSync(path.join(dead, 'locked'), 0o700);
    expect(readFileSync(path.join(dead, 'locked', 'inside.txt'), 'utf8')).toBe('private\n');
  });

  it('run as the user: refuses a dead home with an unreadable folder inside (its age and size are unknown), and one with a file its owner cannot read (rule 20)', async () => {
    const w = world();
    const withFolder = w.session('gone-a:chat', { 'AGENTS.md': '# prompt\n', 'locked/inside.txt': 'private\n' });
    const withFile = w.session('gone-b:chat', { 'AGENTS.md': '# prompt\n', 'secret.txt': 'unreadable but mine\n' });
    w.age();
    giveHomeTo(w);
    chmodSync(path.join(withFolder, 'locked'), 0o000);
    chmodSync(path.join(withFile, 'secret.txt'), 0o000);
    backdate(withFolder, daysAgo(3));
    backdate(withFile, daysAgo(3));
    const before = w.snapshot();

    const run = await runCliAs(USER, runArgs(w), { ...w.env, HOME: w.home });

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(itemAt(report, withFolder)).toMatchObject({ verdict: 'refused', reason: 'unreadable' });
    expect(itemAt(report, withFile)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(itemAt(report, withFile).detail).toContain(`is a file its owner (uid ${USER}) cannot read`);
    expect(diffInventories(before, w.snapshot())).toEqual({ removed: [], changed: [], added: [] });
    expect(existsSync(withFolder)).toBe(true);
  });
});
