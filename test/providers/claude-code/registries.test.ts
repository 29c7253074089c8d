import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemAt } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { addUsers, type RealUser } from '../../helpers/users.js';
import { stateOf } from '../../support/real-clis/run.js';
import { claudeWorld, slugOf } from './fixtures.js';
import { living } from './processes.js';

/** `sleep` under the name `claude`: a process whose executable is Claude Code's, as /proc shows it. */
function claudeExecutable(dir: string): string {
  const bin = path.join(dir, 'bin', 'claude');
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync('/bin/sleep', bin);
  return bin;
}

/**
 * Rule 27 for Claude Code's registry of live sessions: every config folder a running Claude Code
 * names is read, one that cannot be reached is unknown (never empty), and a running Claude Code
 * keeps its project whatever the registries say (by identity, rule 25). Real processes, real
 * folders and links, a real pass. The stand-in Claude Code processes run as a user of their own,
 * in a world that user owns (fixtures.ts).
 */
describe('claude-code: every registry, and the projects of running Claude Code (rules 25 and 27)', () => {
  const [owner] = addUsers(1) as [RealUser];

  it('reads the registry of every CLAUDE_CONFIG_DIR a running Claude Code carries, and keeps the live sessions it records', async () => {
    const w = claudeWorld({ owner });
    const work = path.join(w.home, '.claude-work');
    const alt = path.join(w.dir, 'profiles', 'alt');
    mkdirSync(path.join(work, 'sessions'), { recursive: true });
    mkdirSync(path.join(alt, 'sessions'), { recursive: true });
    const byMark = w.session('/work/by-mark');
    const byExecutable = w.session('/work/by-executable');
    const dead = w.session('/work/dead');
    // Neither process works in its project or holds anything in it: only its registry record keeps it.
    const marked = await living('sleep', ['600'], { env: { CLAUDECODE: '1', CLAUDE_CONFIG_DIR: work }, user: owner });
    const named = await living(claudeExecutable(w.dir), ['600'], { env: { CLAUDE_CONFIG_DIR: alt }, user: owner });
    const recorded = [
      w.record({ pid: marked.pid, sessionId: byMark.sid, cwd: '/work/by-mark' }),
      w.record({ pid: named.pid, sessionId: byExecutable.sid, cwd: '/work/by-executable' }),
    ];
    const workRecord = path.join(work, 'sessions', `${marked.pid}.json`);
    const altRecord = path.join(alt, 'sessions', `${named.pid}.json`);
    // The registry of ~/.claude says nothing of them: the profiles' do.
    renameSync(recorded[0] as string, workRecord);
    renameSync(recorded[1] as string, altRecord);
    const before = w.snapshot();

    const { report } = await w.pass();

    expect(itemAt(report, byMark.folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(itemAt(report, byMark.folder).detail).toContain(`${workRecord} (pid ${marked.pid}, session ${byMark.sid}`);
    expect(itemAt(report, byExecutable.folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(itemAt(report, byExecutable.folder).detail).toContain(`${altRecord} (pid ${named.pid}`);
    expect(itemAt(report, path.dirname(dead.folder)).verdict).toBe('deleted');
    const slug = path.relative(w.dir, path.dirname(dead.folder));
    expect(w.changes(before)).toEqual({
      removed: [...before.keys()].filter((key) => key === slug || key.startsWith(`${slug}/`)).sort(),
      changed: [path.relative(w.dir, w.root)],
      added: [],
    });
  });

  it('refuses source-unreadable every session folder of the uid while a registry cannot be reached: a ~/.claude linked to a disk not mounted here', async () => {
    const w = claudeWorld();
    const s = w.session('/work/shop');
    // The pod mounts the home, not the data disk its ~/.claude points to.
    const disk = path.join(w.dir, 'data-disk', '.claude');
    rmSync(w.config, { recursive: true });
    symlinkSync(disk, w.config);
    const before = w.snapshot();

    const { report, exitCode } = await w.pass();

    expect(exitCode).toBe(1);
    expect(itemAt(report, s.folder)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(report, s.folder).detail).toContain(
      `the registry ${path.join(w.config, 'sessions')} cannot be read: ${w.config} is a link to ${disk}, which is not there (a disk not mounted here?)`,
    );
    expect(report.providers).toContainEqual(expect.objectContaining({ root: w.root, ok: false }));
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses source-unreadable every session folder of the uid while the CLAUDE_CONFIG_DIR of a running Claude Code cannot be reached', async () => {
    const w = claudeWorld({ owner });
    const s = w.session('/work/shop');
    const work = path.join(w.home, '.claude-work');
    symlinkSync(path.join(w.dir, 'data-disk', '.claude-work'), work);
    const claude = await living(claudeExecutable(w.dir), ['600'], { env: { CLAUDE_CONFIG_DIR: work }, user: owner });
    const before = w.snapshot();

    const { report } = await w.pass();

    expect(itemAt(report, s.folder)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(report, s.folder).detail).toContain(
      `the registry of Claude Code process ${claude.pid} (CLAUDE_CONFIG_DIR=${work}) cannot be read: ${work} is a link to something that is not there`,
    );
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });
  });

  it('keeps every session folder of the project a running (even stopped) Claude Code works in, by each spelling of its working directory, record or not', async () => {
    const w = claudeWorld({ owner });
    // The projects are reached through a link, as a home on a data disk is: /proc shows the
    // canonical path, the shell's PWD the linked one.
    const real = path.join(w.dir, 'disk');
    const linked = path.join(w.dir, 'projects');
    for (const project of ['shop', 'cart', 'other']) mkdirSync(path.join(real, project), { recursive: true });
    symlinkSync(real, linked);
    const byCwd = w.session(path.join(real, 'shop'));
    const byPwd = w.session(path.join(linked, 'shop'));
    const byRecord = w.session(path.join(real, 'cart'));
    const lied = w.session(path.join(linked, 'other'));
    const dead = w.session('/work/dead');
    // A Claude Code with no record anywhere, working in the shop; its PWD is the linked spelling.
    const claude = await living(claudeExecutable(w.dir), ['600'], {
      cwd: path.join(linked, 'shop'),
      env: { PWD: path.join(linked, 'shop') },
      user: owner,
    });
    // Stopped (Ctrl-Z) is alive (rule 26).
    process.kill(claude.pid, 'SIGSTOP');
    await waitFor(() => stateOf(claude.pid) === 'T');
    // A Claude Code working elsewhere whose PWD names another folder: that spelling is not its working directory.
    await living('sleep', ['600'], {
      cwd: path.join(real, 'cart'),
      env: { CLAUDECODE: '1', PWD: path.join(linked, 'other') },
      user: owner,
    });
    // A live record whose cwd is the linked spelling keeps the folder of the canonical one.
    w.record({ pid: process.pid, sessionId: randomUUID(), cwd: path.join(linked, 'cart') });
    const before = w.snapshot();

    const { report } = await w.pass();

    for (const kept of [byCwd, byPwd]) {
      expect(itemAt(report, kept.folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
      expect(itemAt(report, kept.folder).detail).toContain(
        `process ${claude.pid} (${path.join(w.dir, 'bin', 'claude')} 600, run by uid ${owner.uid} (${owner.name})) has its working directory in ${path.join(real, 'shop')}`,
      );
    }
    expect(itemAt(report, byRecord.folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(itemAt(report, byRecord.folder).detail).toContain(
      `Claude Code is running in its project (${path.join(linked, 'cart')})`,
    );
    for (const gone of [lied, dead]) expect(itemAt(report, path.dirname(gone.folder)).verdict).toBe('deleted');
    const removed = [lied, dead].map((each) => path.relative(w.dir, path.dirname(each.folder)));
    expect(w.changes(before)).toEqual({
      removed: [...before.keys()]
        .filter((key) => removed.some((slug) => key === slug || key.startsWith(`${slug}/`)))
        .sort(),
      changed: [path.relative(w.dir, w.root)],
      added: [],
    });
    expect(slugOf(path.join(linked, 'shop'))).not.toBe(slugOf(path.join(real, 'shop')));
  });
});
