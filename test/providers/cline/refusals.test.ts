import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import { HISTORY_SETTLE_MS } from '../../../src/engines/vscode-storage/settle.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { sleeperIn } from '../../helpers/processes.js';
import { expectUnchanged } from '../../engines/vscode-storage/expect.js';
import { git, makeShadowRepo } from '../../engines/vscode-storage/fixtures.js';
import { clineScene, historyItem, runCline, settle, workspaceRepo, writeTaskHistory } from './fixtures.js';

/** Each check that stands between a dead-looking repository and its deletion, tripped one at a time. */
describe('cline: what stops a deletion', () => {
  it('refuses a repository that is not Cline’s: another identity, anything beside .git, a folder not named by its worktree’s hash, no worktree', async () => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    const stranger = makeShadowRepo(path.join(s.gs, 'checkpoints', hashWorkingDir(ws('a'))), {
      worktree: ws('a'),
      userName: 'Roo Code',
      userEmail: 'noreply@example.com',
      emptyTemplate: true,
      checkpoints: [`checkpoint-${hashWorkingDir(ws('a'))}-1790000000100`],
    });
    const stray = workspaceRepo(s.gs, ws('b'), ['1790000000101']);
    writeFileSync(path.join(stray, 'notes.txt'), 'mine\n');
    const misnamed = workspaceRepo(s.gs, ws('c'), ['1790000000102'], { name: '1234567' });
    const unrecorded = workspaceRepo(s.gs, ws('d'), ['1790000000103']);
    git(['config', '--unset', 'core.worktree'], { cwd: unrecorded });
    settle(s);
    const before = inventory(s.root);

    const { report, exitCode } = await runCline(s);

    expect(exitCode).toBe(0);
    expect(itemAt(report, stranger)).toMatchObject({ verdict: 'refused', reason: 'signature-mismatch' });
    expect(itemAt(report, stranger).detail).toContain('Roo Code');
    expect(itemAt(report, stray)).toMatchObject({ verdict: 'refused', reason: 'signature-mismatch' });
    expect(itemAt(report, stray).detail).toContain('notes.txt');
    expect(itemAt(report, misnamed)).toMatchObject({ verdict: 'refused', reason: 'worktree-hash-mismatch' });
    expect(itemAt(report, unrecorded)).toMatchObject({ verdict: 'refused', reason: 'worktree-unrecorded' });
    expectUnchanged(before, inventory(s.root));
  });

  it('refuses while git writes the repository, while the standalone host holds its folder lock, and while a process is inside', async () => {
    const s = clineScene();
    const ws = (name: string) => path.join(s.projects, name);
    const indexLocked = workspaceRepo(s.gs, ws('a'), ['1790000000110']);
    writeFileSync(path.join(indexLocked, '.git', 'index.lock'), '');
    const refLocked = workspaceRepo(s.gs, ws('b'), ['1790000000111']);
    writeFileSync(path.join(refLocked, '.git', 'refs', 'heads', 'master.lock'), '');
    const entered = workspaceRepo(s.gs, ws('c'), ['1790000000112']);
    settle(s);
    sleeperIn(path.join(entered, '.git'));

    const { report } = await runCline(s);

    expect(itemAt(report, indexLocked)).toMatchObject({ verdict: 'refused', reason: 'git-lock-file' });
    expect(itemAt(report, refLocked)).toMatchObject({ verdict: 'refused', reason: 'git-lock-file' });
    expect(itemAt(report, entered)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    for (const repo of [indexLocked, refLocked, entered]) expect(existsSync(repo)).toBe(true);

    // The CLI's locks.db: a folder lock on ~/.cline/data/checkpoints/<hash> (a literal ~).
    const data = path.join(s.home, '.cline', 'data');
    const held = workspaceRepo(data, ws('d'), ['1790000000113']);
    const free = workspaceRepo(data, ws('e'), ['1790000000114']);
    writeLocksDb(path.join(data, 'locks.db'), [
      ['127.0.0.1:45911', 'instance', '127.0.0.1:45910'],
      ['1790000000199', 'folder', `~/.cline/data/checkpoints/${hashWorkingDir(ws('d'))}`],
    ]);
    settle(s);

    const cli = await runCline(s);

    expect(itemAt(cli.report, held)).toMatchObject({ verdict: 'refused', reason: 'cline-lock-held' });
    expect(itemAt(cli.report, free)).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(existsSync(held)).toBe(true);
  });

  it('refuses a repository written within minAge, and one whose history is dated in the future', async () => {
    const s = clineScene();
    const recent = workspaceRepo(s.gs, path.join(s.projects, 'a'), ['1790000000120']);
    settle(s);
    const now = new Date();
    utimesSync(path.join(recent, '.git', 'index'), now, now);

    const young = await runCline(s, { minAge: '1h' });
    expect(itemAt(young.report, recent)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });

    const history = writeTaskHistory(s.gs, []);
    settle(s);
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(history, future, future);

    const skewed = await runCline(s);
    expect(itemAt(skewed.report, recent)).toMatchObject({ verdict: 'refused', reason: 'clock-skew' });
    expect(itemAt(skewed.report, recent).detail).toContain('taskHistory.json');
    expect(existsSync(recent)).toBe(true);
  });

  it('reads the history twice when it was just written, and refuses when the two reads differ', async () => {
    const s = clineScene();
    const ws = path.join(s.projects, 'racing');
    const repo = workspaceRepo(s.gs, ws, ['1790000000130']);
    settle(s);
    // Fresh: the pass must wait and read again. Meanwhile Cline writes the task that uses the repository.
    const history = writeTaskHistory(s.gs, []);
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `setTimeout(() => { const fs = require('fs'); fs.writeFileSync(${JSON.stringify(`${history}.tmp`)}, ${JSON.stringify(JSON.stringify([historyItem('1790000000130', ws)]))}); fs.renameSync(${JSON.stringify(`${history}.tmp`)}, ${JSON.stringify(history)}); }, 1500)`,
      ],
      { stdio: 'ignore' },
    );
    const started = Date.now();

    const { report } = await runCline(s);

    expect(Date.now() - started).toBeGreaterThanOrEqual(HISTORY_SETTLE_MS - 1_000);
    // The second read saw the task: the repository is kept (had it been judged on the first, it would be gone).
    expect(itemAt(report, repo)).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    await exited(writer);

    // A history rewritten during the pass with the same answer still settles; one that changes without naming it refuses.
    writeTaskHistory(s.gs, []);
    settle(s);
    const fresh = writeTaskHistory(s.gs, [historyItem('1790000000999', path.join(s.projects, 'other'))]);
    // Cline keeps rewriting it (atomically, each time with another answer that names other tasks)
    // for longer than the pass takes, so the two reads differ whenever the pass makes them.
    const other = historyItem('1790000001000', path.join(s.projects, 'other'));
    const churn = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs');
         const [file, template, holdMs] = process.argv.slice(1);
         let n = 0;
         const tick = setInterval(() => {
           n += 1;
           const item = { ...JSON.parse(template), id: String(1790000001000 + n), ts: 1790000001000 + n };
           fs.writeFileSync(file + '.tmp', JSON.stringify([item]));
           fs.renameSync(file + '.tmp', file);
         }, 250);
         setTimeout(() => clearInterval(tick), Number(holdMs));`,
        fresh,
        JSON.stringify(other),
        String(HISTORY_SETTLE_MS * 3),
      ],
      { stdio: 'ignore' },
    );
    const second = await runCline(s);
    await exited(churn);
    expect(itemAt(second.report, repo)).toMatchObject({ verdict: 'refused', reason: 'history-unsettled' });
    expect(existsSync(repo)).toBe(true);
  });

  it('fails closed on every source it cannot read: a corrupt history file, a state database that is not VS Code’s, a remote host without one', async () => {
    const s = clineScene();
    const repo = workspaceRepo(s.gs, path.join(s.projects, 'a'), ['1790000000140']);
    mkdirSync(path.join(s.gs, 'state'), { recursive: true });
    writeFileSync(path.join(s.gs, 'state', 'taskHistory.json'), '[{"id": "1790000000140", "ts": 17');
    settle(s);

    const corrupt = await runCline(s);
    expect(corrupt.exitCode).toBe(1);
    expect(corrupt.report.providers).toEqual([
      expect.objectContaining({
        provider: 'cline',
        root: s.gs,
        ok: false,
        error: expect.stringContaining('taskHistory.json'),
      }),
    ]);
    expect(itemAt(corrupt.report, repo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });

    writeTaskHistory(s.gs, []);
    rmSync(s.stateDb);
    const db = new Database(s.stateDb);
    db.exec('CREATE TABLE other (k TEXT)');
    db.close();
    settle(s);
    const schema = await runCline(s);
    expect(itemAt(schema.report, repo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(schema.report.providers[0]?.error).toContain('ItemTable');

    rmSync(s.stateDb);
    const remote = clineScene();
    const server = path.join(remote.home, '.vscode-server', 'data');
    const serverGs = path.join(server, 'User', 'globalStorage', 'saoudrizwan.claude-dev');
    const remoteRepo = workspaceRepo(serverGs, path.join(remote.projects, 'r'), ['1790000000141']);
    rmSync(path.join(remote.home, '.config'), { recursive: true });
    settle(remote);
    const headless = await runCline(remote);
    expect(headless.report.providers).toEqual([expect.objectContaining({ root: serverGs, ok: false })]);
    expect(itemAt(headless.report, remoteRepo)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(headless.report, remoteRepo).detail).toContain('remote host');
    expect(existsSync(repo) && existsSync(remoteRepo)).toBe(true);
  });

  it('never follows a link: a repository folder that is a link, or a task folder behind one', async () => {
    const s = clineScene();
    const target = workspaceRepo(path.join(s.root, 'elsewhere'), path.join(s.projects, 'a'), ['1790000000150']);
    const link = path.join(s.gs, 'checkpoints', path.basename(target));
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(target, link);
    const realTasks = path.join(s.root, 'tasks-elsewhere');
    const legacy = makeShadowRepo(path.join(realTasks, '1740000000150', 'checkpoints'), {
      worktree: path.join(s.projects, 'b'),
      userName: 'Cline Checkpoint',
      userEmail: 'noreply@example.com',
      emptyTemplate: false,
      checkpoints: ['checkpoint'],
    });
    symlinkSync(realTasks, path.join(s.gs, 'tasks'));
    settle(s);
    const before = inventory(s.root);

    const { report } = await runCline(s);

    expect(itemAt(report, link)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(existsSync(path.join(target, '.git', 'HEAD'))).toBe(true);
    expect(itemAt(report, path.join(s.gs, 'tasks', '1740000000150', 'checkpoints'))).toMatchObject({
      verdict: 'refused',
      reason: 'symlink-in-path',
    });
    expect(existsSync(legacy)).toBe(true);
    expectUnchanged(before, inventory(s.root));
  });
});

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.on('exit', () => resolve()));
}

function writeLocksDb(file: string, rows: Array<[string, 'file' | 'instance' | 'folder', string]>): void {
  // The schema of Cline's SqliteLockManager, as the 3.52.0 core creates it.
  const db = new Database(file);
  try {
    db.exec(`CREATE TABLE locks (
				id INTEGER PRIMARY KEY,
				held_by TEXT NOT NULL,
				lock_type TEXT NOT NULL CHECK (lock_type IN ('file', 'instance', 'folder')),
				lock_target TEXT NOT NULL,
				locked_at INTEGER NOT NULL,
				UNIQUE(lock_type, lock_target)
			)`);
    const insert = db.prepare('INSERT INTO locks (held_by, lock_type, lock_target, locked_at) VALUES (?, ?, ?, ?)');
    for (const [heldBy, type, target] of rows) insert.run(heldBy, type, target, Date.now());
  } finally {
    db.close();
  }
}

describe('cline: names that are not UTF-8', () => {
  it('proves a repository dead whatever the names inside it, and refuses one whose worktree cannot be named exactly', async () => {
    const s = clineScene();
    const dead = workspaceRepo(s.gs, path.join(s.projects, 'bytes'), ['1790000000160']);
    const weird = workspaceRepo(s.gs, path.join(s.projects, 'weird'), ['1790000000161']);
    const config = path.join(weird, '.git', 'config');
    const text = readFileSync(config);
    const at = text.indexOf(Buffer.from(path.join(s.projects, 'weird')));
    writeFileSync(
      config,
      Buffer.concat([
        text.subarray(0, at),
        Buffer.from(`${path.join(s.projects, 'we')}`),
        Buffer.from([0xe9]),
        text.subarray(at + path.join(s.projects, 'we').length + 1),
      ]),
    );
    settle(s);
    // Made after the scene is aged: the test's own helpers name files by string.
    const odd = Buffer.concat([
      Buffer.from(path.join(dead, '.git', 'objects') + path.sep),
      Buffer.from([0x6f, 0xff, 0xfe, 0x2e, 0x70, 0x61, 0x63, 0x6b]),
    ]);
    writeFileSync(odd, 'pack data\n');
    const old = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(odd, old, old);
    utimesSync(path.join(dead, '.git', 'objects'), old, old);

    // Removing such names is the safety engine's work (rule 13); what the provider must do is judge.
    const { report } = await runCline(s, { reportOnly: true });

    expect(itemAt(report, dead)).toMatchObject({ verdict: 'would-delete', reason: 'task-deleted' });
    expect(itemAt(report, weird)).toMatchObject({ verdict: 'refused', reason: 'evidence-unreadable' });
    expect(existsSync(weird)).toBe(true);
    rmSync(odd);
  });
});
