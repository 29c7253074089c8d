import type { ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, lutimesSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { quarantinedName, quarantineName } from '../../src/safety/removal/quarantine.js';
import {
  bytesPath,
  gitBytes,
  latin1,
  mkdirBytes,
  putBytes,
  shown,
  spelled,
  symlinkBytes,
  type BytePath,
} from '../helpers/bytes.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { hookFs, restoreFs } from '../helpers/fs-hook.js';
import { runCli } from '../helpers/cli.js';
import { diffInventories, inventory, type Entry } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { scratchPass, scratchProvider } from '../helpers/scratch-provider.js';
import { spawnLiving, waitFor } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp.js';
import { addKiloWorktree, git, makeSnapshot, removeKiloWorktree } from '../providers/kilo/fixtures.js';
import { expectOnlyRemoved, runKilo, scene as kiloScene, snapshotOf } from '../providers/kilo/scene.js';
import { ownHomeEnv } from '../providers/owl/env.js';
import { addJob, addProject, addRun, createOwlDb } from '../providers/owl/owl-db.js';
import { jobWorktree, owlHome } from '../providers/owl/scenario.js';
import { addWorktree, makeRepo, sh } from '../helpers/git-fixtures.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { world } from './support/watchfire-world.js';

const UUID = '5f0c2b7e-8a41-4c3d-9e6f-1a2b3c4d5e6f';

/**
 * Rules 13 and 14 through whole passes: names that are not UTF-8 (built here as bytes, never
 * through the tool's own codec) are listed, measured, aged and deleted like any other; an entry
 * that vanishes between a listing and its lstat is re-walked, never skipped; a quarantine name
 * never fails for length. The report names each item with its invalid bytes escaped.
 */

/** A dead item holding names that are not UTF-8 at several depths: files, folders, links. */
function holdBytes(item: BytePath): void {
  putBytes(bytesPath(item, latin1('caf\xe9.txt')), 'coffee\n');
  putBytes(bytesPath(item, latin1('d\xe9j\xe0'), latin1('\xff\xfe'), 'plain.txt'), 'deep\n');
  putBytes(bytesPath(item, latin1('d\xe9j\xe0'), latin1('\xff\xfe'), latin1('na\xefve')), 'deeper\n');
  mkdirBytes(bytesPath(item, 'plain', latin1('empty-\x80')));
  symlinkBytes(latin1('../\xe9'), bytesPath(item, 'plain', latin1('link-\xe9')));
}

function scene() {
  const dir = tempDir('aj-bytes-');
  const root = path.join(dir, 'root');
  const outside = path.join(dir, 'outside');
  putBytes(bytesPath(outside, latin1('keep-\xe9')), 'must survive\n');
  put(path.join(outside, 'keep.txt'), 'must survive too\n');
  return { dir, root, outside, reportDir: path.join(dir, 'run', 'report') };
}

const snapshot = (s: { dir: string; reportDir: string }) => inventory(s.dir, { exclude: [path.dirname(s.reportDir)] });

describe('names that are not UTF-8, through a pass', () => {
  it('a fresh file in a Latin-1 folder of an otherwise old item makes it too recent: nothing is deleted', async () => {
    const s = scene();
    const item = bytesPath(s.root, 'session');
    holdBytes(item);
    backdate(s.dir, daysAgo(3));
    const fresh = putBytes(bytesPath(item, latin1('d\xe9j\xe0'), latin1('\xff\xfe'), latin1('fresh-\xe9')), 'now\n');
    const old = daysAgo(3);
    // Only the file is fresh: the folders that hold it are as old as everything else.
    lutimesSync(bytesPath(item, latin1('d\xe9j\xe0'), latin1('\xff\xfe')), old, old);
    lutimesSync(bytesPath(item, latin1('d\xe9j\xe0')), old, old);
    expect(lstatSync(fresh).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    const before = snapshot(s);

    const { report } = await scratchPass({ provider: scratchProvider({ root: s.root }), reportDir: s.reportDir });

    expect(itemAt(report, spelled(item))).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(diffInventories(before, snapshot(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('deletes an item holding such names at every depth, and its own name escaped in the report; nothing is left', async () => {
    const s = scene();
    const plain = bytesPath(s.root, 'plain-session');
    const odd = bytesPath(s.root, latin1('s\xe9ance-\xff'));
    holdBytes(plain);
    holdBytes(odd);
    symlinkBytes(bytesPath(s.outside), bytesPath(odd, latin1('to-outside-\xe9')));
    backdate(s.dir, daysAgo(3));
    const outsideBefore = inventory(s.outside);

    const { report, exitCode } = await scratchPass({
      provider: scratchProvider({ root: s.root }),
      reportDir: s.reportDir,
    });

    expect(exitCode).toBe(0);
    expect(itemAt(report, spelled(plain))).toMatchObject({ verdict: 'deleted', bytes: 7 + 5 + 7 + 4 });
    const shown = `${s.root}/s\\xe9ance-\\xff`;
    expect(itemAt(report, shown)).toMatchObject({ verdict: 'deleted' });
    // Nothing left behind: no half-deleted quarantine for the next pass to fail on.
    expect(readdirSync(s.root)).toEqual([]);
    expect(diffInventories(outsideBefore, inventory(s.outside))).toEqual({ removed: [], changed: [], added: [] });
    // report.json, report.md and the audit log all write the name the same way, as valid UTF-8.
    const json = readFileSync(path.join(s.reportDir, 'report.json'));
    expect(json.toString('utf8')).toContain(JSON.stringify(shown));
    expect(readFileSync(path.join(s.reportDir, 'report.md'), 'utf8')).toContain('s\\\\xe9ance-\\\\xff');
    const audit = readFileSync(path.join(s.reportDir, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(audit.map((line) => JSON.parse(line).path as string).sort()).toEqual([spelled(plain), shown].sort());
    for (const file of ['report.json', 'report.md', 'audit.jsonl'])
      expect(readFileSync(path.join(s.reportDir, file), 'utf8'), file).not.toMatch(/\ufffd|\\ud[c-f]/i);

    const again = await scratchPass({ provider: scratchProvider({ root: s.root }), reportDir: s.reportDir });
    expect(again.report.items).toEqual([]);
  });

  it('finishes a half-deleted quarantine holding such names in the next pass', async () => {
    const s = scene();
    const quarantine = bytesPath(s.root, latin1(quarantineName('s\xe9ance')));
    holdBytes(quarantine);
    // What an interrupted delete leaves: some entries gone, their emptied folders refreshed.
    renameSync(bytesPath(quarantine, latin1('caf\xe9.txt')), bytesPath(s.dir, 'moved-away'));
    backdate(quarantine, daysAgo(3));

    const { report, exitCode } = await scratchPass({
      provider: scratchProvider({ root: s.root }),
      reportDir: s.reportDir,
    });

    expect(exitCode).toBe(0);
    expect(itemAt(report, shown(quarantine))).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(itemAt(report, shown(quarantine)).path).toContain('.s\\xe9ance.cleanup-');
    expect(readdirSync(s.root)).toEqual([]);
  });

  it('quarantines and deletes items of 250 and 255 bytes, and the next pass finishes a short-form quarantine', async () => {
    const s = scene();
    const names = [latin1('\xe9'.repeat(250)), Buffer.from(`${'é'.repeat(127)}x`, 'utf8')];
    expect(names.map((name) => name.length)).toEqual([250, 255]);
    for (const name of names) holdBytes(bytesPath(s.root, name));
    // A pass killed after the rename, before the delete: the short form of a 255-byte name.
    const interrupted = quarantineName(`${'ü'.repeat(127)}y`);
    expect(Buffer.byteLength(interrupted)).toBeLessThanOrEqual(255);
    holdBytes(bytesPath(s.root, interrupted));
    backdate(s.dir, daysAgo(3));
    const renames: string[] = [];
    hookFs<typeof renameSync>('renameSync', (real, from, to) => {
      renames.push(spelled(Buffer.isBuffer(to) ? to : Buffer.from(String(to))));
      return real(from, to);
    });

    const { report, exitCode } = await scratchPass({
      provider: scratchProvider({ root: s.root }),
      reportDir: s.reportDir,
    });
    restoreFs();

    expect(exitCode).toBe(0);
    for (const name of names) expect(itemAt(report, shown(bytesPath(s.root, name))).verdict).toBe('deleted');
    expect(itemAt(report, path.join(s.root, interrupted))).toMatchObject({ kind: 'quarantine', verdict: 'deleted' });
    expect(renames).toHaveLength(2);
    for (const renamed of renames) {
      expect(Buffer.byteLength(path.basename(renamed).replace(/[\udc80-\udcff]/gu, 'x'))).toBeLessThanOrEqual(255);
      expect(quarantinedName(path.basename(renamed))).toMatch(/~[0-9a-f]{16}$/);
    }
    expect(readdirSync(s.root)).toEqual([]);
  });
});

describe('a process inside an item whose names are not UTF-8', () => {
  /** A shell in `folder` (a byte path), which opens `file` there when given, then sleeps. */
  function occupant(folder: BytePath, file?: BytePath): ChildProcess {
    const quote = (p: BytePath) => `"$(printf '${[...p].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}')"`;
    const script = file ? `exec 3< ${quote(file)}; cd /; exec sleep 600` : `cd ${quote(folder)} && exec sleep 600`;
    return spawnLiving('/bin/sh', ['-c', script]);
  }

  it('is seen by identity of path bytes: a working directory or an open file there keeps the item (in-use)', async () => {
    const s = scene();
    const byCwd = bytesPath(s.root, latin1('caf\xe9'));
    const byFile = bytesPath(s.root, 'plain', latin1('d\xe9j\xe0'));
    holdBytes(byCwd);
    holdBytes(bytesPath(s.root, 'plain'));
    backdate(s.dir, daysAgo(3));
    const inCwd = occupant(bytesPath(byCwd, latin1('d\xe9j\xe0')));
    const withFile = occupant(byFile, bytesPath(byFile, latin1('\xff\xfe'), latin1('na\xefve')));
    await waitFor(() => existsSync(`/proc/${inCwd.pid}/cwd`) && existsSync(`/proc/${withFile.pid}/fd/3`));
    await waitFor(() => readdirSync(`/proc/${withFile.pid}/fd`).includes('3'));
    const before = snapshot(s);

    const { report } = await scratchPass({ provider: scratchProvider({ root: s.root }), reportDir: s.reportDir });

    expect(itemAt(report, shown(byCwd))).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, path.join(s.root, 'plain'))).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(diffInventories(before, snapshot(s))).toEqual({ removed: [], changed: [], added: [] });
  });
});

describe('an entry that vanishes between its listing and its lstat, in a pass', () => {
  /**
   * Moves `victim` away (really) right before each of the walk's lstats of it, `times` times, and
   * back right after: listed, then gone at its lstat, then listed again.
   */
  function vanishing(victim: string, times: number): { hits: number } {
    const state = { hits: 0 };
    hookFs<typeof lstatSync>('lstatSync', (real, p, ...rest) => {
      if (p !== victim || state.hits >= times) return real(p, ...rest);
      state.hits += 1;
      // The folder's own mtime is put back too: a write seen during the pass would make the item
      // too recent (a write after the judgement's clock) before this check is reached.
      const folder = real('.' as Parameters<typeof lstatSync>[0]);
      renameSync(victim, `${victim}.away`);
      try {
        return real(p, ...rest);
      } finally {
        renameSync(`${victim}.away`, victim);
        lutimesSync('.', folder.atime, folder.mtime);
      }
    });
    return state;
  }

  it('is re-walked: a re-walk that sees the tree whole settles it; the move itself is a change the last proof sees', async () => {
    const s = scene();
    const item = bytesPath(s.root, 'session');
    holdBytes(item);
    putBytes(bytesPath(item, 'sub', 'flaky.txt'), 'here, then not\n');
    backdate(s.dir, daysAgo(3));
    const pass = (reportOnly: boolean) =>
      scratchPass({ provider: scratchProvider({ root: s.root }), reportDir: s.reportDir, reportOnly });

    const planned = vanishing('flaky.txt', 1);
    const { report: judged } = await pass(true);
    restoreFs();
    expect(planned.hits).toBe(1);
    expect(itemAt(judged, spelled(item))).toMatchObject({ verdict: 'would-delete' });

    // In a deleting pass the entry really was moved away and back during the pass (rule 21).
    const moved = vanishing('flaky.txt', 1);
    const { report: proven } = await pass(false);
    restoreFs();
    expect(moved.hits).toBe(1);
    expect(itemAt(proven, spelled(item))).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(itemAt(proven, spelled(item)).detail).toContain('put back where it was');

    const { report: next } = await pass(false);
    expect(itemAt(next, spelled(item))).toMatchObject({ verdict: 'deleted' });
  });

  it('reports an item still listed that lstat cannot find as changed-during-inspection, never passes over it', async () => {
    const s = scene();
    const item = bytesPath(s.root, 'session');
    holdBytes(item);
    backdate(s.dir, daysAgo(3));
    const before = snapshot(s);
    hookFs<typeof lstatSync>('lstatSync', (real, p, ...rest) => {
      if (p === spelled(item)) throw Object.assign(new Error(`ENOENT: lstat '${p}'`), { code: 'ENOENT' });
      return real(p, ...rest);
    });

    const { report } = await scratchPass({ provider: scratchProvider({ root: s.root }), reportDir: s.reportDir });
    restoreFs();

    expect(itemAt(report, spelled(item))).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(itemAt(report, spelled(item)).detail).toContain('is listed in its folder but cannot be looked at');
    expect(diffInventories(before, snapshot(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses the item with changed-during-inspection when it vanishes on the re-walk too, and touches nothing', async () => {
    const s = scene();
    const item = bytesPath(s.root, 'session');
    holdBytes(item);
    putBytes(bytesPath(item, 'sub', 'flaky.txt'), 'here, then not\n');
    backdate(s.dir, daysAgo(3));
    const before = snapshot(s);
    const hook = vanishing('flaky.txt', 2);

    const { report } = await scratchPass({
      provider: scratchProvider({ root: s.root }),
      reportDir: s.reportDir,
    });
    restoreFs();

    expect(hook.hits).toBe(2);
    const found = itemAt(report, spelled(item));
    expect(found).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(found.detail).toContain(path.join(spelled(item), 'sub', 'flaky.txt'));
    const changes = diffInventories(before, snapshot(s));
    expect(changes.removed).toEqual([]);
    expect(changes.added).toEqual([]);
    expect(changes.changed.every((key) => key.endsWith('sub'))).toBe(true);
  });
});

/** The inventories of `folders` (byte paths), to prove each one is still whole after a pass. */
function inventories(folders: readonly BytePath[]): Array<Map<string, Entry>> {
  return folders.map((folder) => inventory(spelled(folder)));
}

describe('names that are not UTF-8 in the items of every provider', () => {
  it('watchfire: deletes dead session homes holding them (one named so itself), refuses a home whose name is no session name', async () => {
    const w = world();
    const dead = bytesPath(w.session('gone-proj:chat', { 'AGENTS.md': '# prompt\n' }));
    holdBytes(dead);
    const deadOdd = bytesPath(w.root, 'codex-home', latin1('gone-proj:task:#0001-caf\xe9'));
    holdBytes(deadOdd);
    const foreign = bytesPath(w.root, 'codex-home', latin1('caf\xe9:chat'));
    holdBytes(foreign);
    w.age();
    const before = w.snapshot();
    const [foreignBefore] = inventories([foreign]);

    const run = await runCli(['run', '--config', w.configFile, '--json', '--log-level', 'info'], { env: w.env });

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(itemAt(report, spelled(dead))).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
    // The log names the deleted home as the report does.
    const logged = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; path?: string })
      .filter((line) => line.msg === 'deleted')
      .map((line) => line.path);
    expect(logged).toContain(`${w.root}/codex-home/gone-proj:task:#0001-caf\\xe9`);
    expect(run.stderr).not.toMatch(/\ufffd|\\ud[c-f]/i);
    expect(itemAt(report, `${w.root}/codex-home/gone-proj:task:#0001-caf\\xe9`)).toMatchObject({
      verdict: 'deleted',
      reason: 'project-deleted',
    });
    const refused = itemAt(report, `${w.root}/codex-home/caf\\xe9:chat`);
    expect(refused).toMatchObject({ verdict: 'refused', reason: 'unrecognized-name' });
    expect(refused.bytes).toBe(7 + 5 + 7 + 4);
    expectOnlyTargetsTouched(before, w.snapshot(), { targets: [dead, deadOdd].map((p) => w.key(spelled(p))) });
    expect(diffInventories(foreignBefore as Map<string, Entry>, inventory(spelled(foreign)))).toEqual({
      removed: [],
      changed: [],
      added: [],
    });
    expect(readFileSync(path.join(w.reportDir, 'report.md'), 'utf8')).toContain('caf\\\\xe9:chat');
  });

  it('kilo: deletes a dead checkpoint repository holding them, keeps a live one whole, finishes a quarantine holding them', async () => {
    const s = kiloScene();
    const live = addKiloWorktree(s.repo, 'live');
    const liveRepo = bytesPath(makeSnapshot(s.data, s.projectId, live));
    const gone = addKiloWorktree(s.repo, 'gone');
    const goneRepo = makeSnapshot(s.data, s.projectId, gone);
    removeKiloWorktree(s.repo, gone);
    const leftover = addKiloWorktree(s.repo, 'leftover');
    const leftoverRepo = makeSnapshot(s.data, s.projectId, leftover);
    removeKiloWorktree(s.repo, leftover);
    const quarantine = path.join(path.dirname(leftoverRepo), `.${path.basename(leftoverRepo)}.cleanup-${UUID}`);
    renameSync(leftoverRepo, quarantine);
    for (const gitdir of [liveRepo, bytesPath(goneRepo), bytesPath(quarantine)]) {
      // git names a ref file after the ref's bytes; a branch name need not be UTF-8.
      const head = readFileSync(bytesPath(spelled(gitdir), 'HEAD'), 'utf8');
      expect(head).toMatch(/^ref: refs\/heads\//);
      const commit = git(['--git-dir', spelled(gitdir), 'rev-parse', 'HEAD']);
      putBytes(bytesPath(gitdir, 'refs', 'heads', latin1('caf\xe9')), commit);
      holdBytes(bytesPath(gitdir, latin1('notes-\xe9')));
    }
    const before = snapshotOf(s);
    const [liveBefore] = inventories([liveRepo]);

    const { report, exitCode } = await runKilo(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, spelled(liveRepo))).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    expect(itemAt(report, goneRepo)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(itemAt(report, quarantine)).toMatchObject({ kind: 'quarantine', verdict: 'deleted' });
    expectOnlyRemoved(s, before, snapshotOf(s), [goneRepo, quarantine]);
    expect(diffInventories(liveBefore as Map<string, Entry>, inventory(spelled(liveRepo)))).toEqual({
      removed: [],
      changed: [],
      added: [],
    });
  });

  it('owl: an ignored file so named goes with its done job, an untracked one is unfinished work, and a job whose recorded worktree is not UTF-8 keeps it', async () => {
    const dir = tempDir();
    const owl = owlHome(path.join(dir, 'world'));
    const db = createOwlDb(owl.db);
    addProject(db, 'app', owl.repo);
    const done = jobWorktree(owl, 1);
    addJob(db, { id: 1, state: 'done', branch: 'owl/job-1', worktree: done });
    putBytes(bytesPath(done, latin1('build-\xe9.log')), 'ignored output\n');
    putBytes(bytesPath(done, latin1('cache-\xff'), 'x.log'), 'ignored output\n');
    const cancelled = jobWorktree(owl, 2);
    addJob(db, { id: 2, state: 'cancelled', branch: 'owl/job-2', worktree: cancelled });
    putBytes(bytesPath(cancelled, latin1('d\xe9j\xe0.txt')), 'untracked work\n');
    // Owl records the path it made as bytes; its folder name is no job id.
    const reviewed = bytesPath(owl.data, 'worktrees', latin1('r\xe9vision'));
    gitBytes(owl.repo, 'worktree', 'add', '-q', '-b', 'owl/job-3', reviewed);
    addJob(db, { id: 3, state: 'review', branch: 'owl/job-3', worktree: '' });
    db.prepare('UPDATE jobs SET worktree = CAST(? AS TEXT) WHERE id = 3').run(reviewed);
    addRun(db, { jobId: 3, started: daysAgo(1.1), ended: daysAgo(1) });
    db.close();
    backdate(path.join(dir, 'world'), daysAgo(3));
    const kept = inventories([bytesPath(cancelled), reviewed]);

    const { report, exitCode } = await pass({
      dir,
      config: { homes: [owl.home], minAge: '1h' },
      only: ['owl'],
      env: ownHomeEnv(owl.home),
    });

    expect(exitCode).toBe(0);
    expect(itemAt(report, done)).toMatchObject({ verdict: 'deleted', reason: 'job-done' });
    expect(existsSync(done)).toBe(false);
    const unfinished = itemAt(report, cancelled);
    expect(unfinished).toMatchObject({ verdict: 'unfinished', reason: 'uncommitted-changes' });
    expect(unfinished.detail).toContain('1 untracked file (d\\xe9j\\xe0.txt)');
    expect(itemAt(report, shown(reviewed))).toMatchObject({ verdict: 'kept', reason: 'job-open' });
    for (const [k, folder] of [bytesPath(cancelled), reviewed].entries()) {
      expect(diffInventories(kept[k] as Map<string, Entry>, inventory(spelled(folder)))).toEqual({
        removed: [],
        changed: [],
        added: [],
      });
    }
  });

  it('worktrees: removes an idle clean worktree whose own name is not UTF-8 (its ignored files so named with it), and reports an untracked one as unfinished', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const root = path.join(dir, 'agents');
    const clean = bytesPath(root, latin1('caf\xe9-\xff'));
    gitBytes(repo, 'worktree', 'add', '-q', '-b', 'agent/clean', clean);
    putBytes(bytesPath(clean, latin1('out-\xe9.log')), 'ignored\n');
    putBytes(bytesPath(clean, latin1('logs-\xe9'), latin1('\xfe.log')), 'ignored\n');
    const dirty = addWorktree(repo, path.join(root, 'dirty'), 'agent/dirty');
    putBytes(bytesPath(dirty, latin1('na\xefve.txt')), 'untracked work\n');
    const admin = bytesPath(repo, '.git', 'worktrees', latin1('caf\xe9-\xff'));
    expect(existsSync(admin)).toBe(true);
    backdate(dir, daysAgo(10));
    const [dirtyBefore] = inventories([bytesPath(dirty)]);

    const { report, exitCode } = await pass({
      dir,
      config: {
        homes: [path.join(dir, 'nohome')],
        minAge: '1h',
        providers: { worktrees: { sets: [{ name: 'agents', roots: [root], idleAfter: '1d' }] } },
      },
      only: ['worktrees'],
    });

    expect(exitCode).toBe(0);
    expect(itemAt(report, shown(clean))).toMatchObject({ verdict: 'deleted', reason: 'idle-clean' });
    expect(existsSync(clean)).toBe(false);
    expect(existsSync(admin)).toBe(false);
    expect(sh(repo, 'branch', '--list', 'agent/*').split('\n').filter(Boolean)).toHaveLength(2);
    const unfinished = itemAt(report, dirty);
    expect(unfinished).toMatchObject({ verdict: 'unfinished', reason: 'uncommitted-changes' });
    expect(unfinished.detail).toContain('na\\xefve.txt');
    expect(diffInventories(dirtyBefore as Map<string, Entry>, inventory(dirty))).toEqual({
      removed: [],
      changed: [],
      added: [],
    });
  });
});
