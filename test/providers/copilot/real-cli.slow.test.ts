import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { expectOnly, sh } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { layoutOf, makeProject } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { killHard, startRunning, stateOf, waitUntil } from '../../support/real-clis/run.js';
import { type CliSandbox, cliSandbox } from '../../support/real-clis/sandbox.js';
import { cacheBeside, COPILOT_CLI, copilotEnv, promptArgs, silentModelServer } from './copilot-cli.js';
import { detailOf, prWorktree, verdictOf } from './fixtures.js';

let copilot: CliInstall;
let server: FakeModelServer;
let silent: { port: number; close(): Promise<void> };

beforeAll(async () => {
  copilot = await installNpmCli(COPILOT_CLI);
  server = await startFakeModelServer();
  silent = await silentModelServer();
}, 320_000);

afterAll(async () => {
  await server?.close();
  await silent?.close();
});

const skipUnless = (ctx: { skip(why: string): void }) => {
  if (copilot.why !== undefined) {
    console.warn(`skipping a real Copilot CLI test: ${copilot.why}`);
    ctx.skip(copilot.why);
  }
};

interface World {
  sandbox: CliSandbox;
  dir: string;
  project: string;
  work: string;
}

/** A sandbox whose Copilot talks to `port`, with a project repository. */
function world(port: number): World {
  const sandbox = cliSandbox(tempDir('aj-copilot-cli-'));
  copilotEnv(sandbox, port, cacheBeside(copilot.bin as string));
  const project = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
  return { sandbox, dir: path.join(sandbox.home, '.copilot'), project, work: tempDir('aj-copilot-cli-run-') };
}

function copilotIn(w: World, cwd: string): ChildProcess & { output(): string } {
  return startRunning(copilot.bin as string, promptArgs('say hi'), { cwd, env: w.sandbox.env, timeoutMs: 300_000 });
}

function exited(child: ChildProcess & { output(): string }): Promise<void> {
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`copilot exited ${code}: ${child.output()}`)),
    ),
  );
}

const run = (w: World, reportOnly = false) =>
  pass({
    dir: w.work,
    config: { homes: [w.sandbox.home], minAge: '1h' },
    only: ['copilot', 'worktrees'],
    env: { HOME: w.sandbox.home },
    reportOnly,
  });

/** The one session folder of the home. */
function onlySession(w: World): string {
  const [id, ...more] = readdirSync(path.join(w.dir, 'session-state'));
  expect(more).toEqual([]);
  return path.join(w.dir, 'session-state', id as string);
}

/** The session folder whose in-use lock names `pid`, once there is one. */
function lockedSession(w: World, pid: number): Promise<string> {
  return waitUntil(`an in-use lock of copilot ${pid}`, () => {
    try {
      const state = path.join(w.dir, 'session-state');
      const id = readdirSync(state).find((each) => readdirSync(path.join(state, each)).includes(`inuse.${pid}.lock`));
      return id ? path.join(state, id) : null;
    } catch {
      return null;
    }
  });
}

/** The files a process has open, as /proc shows them. */
function openFiles(pid: number): string[] {
  const fds = `/proc/${pid}/fd`;
  return readdirSync(fds).flatMap((fd) => {
    try {
      return [readlinkSync(path.join(fds, fd))];
    } catch {
      return [];
    }
  });
}

/** Stops the process; answers whether it stopped without `file` open, else lets it go on. */
function stoppedWithout(pid: number, file: string): boolean {
  process.kill(pid, 'SIGSTOP');
  const until = Date.now() + 2000;
  while (stateOf(pid) !== 'T') if (Date.now() > until) throw new Error(`process ${pid} did not stop`);
  if (!openFiles(pid).includes(file)) return true;
  process.kill(pid, 'SIGCONT');
  return false;
}

const logOf = (w: World, pid: number) => {
  const name = readdirSync(path.join(w.dir, 'logs')).find((each) => each.endsWith(`-${pid}.log`));
  if (!name) throw new Error(`no log of process ${pid} in ${path.join(w.dir, 'logs')}`);
  return path.join(w.dir, 'logs', name);
};

describe(`the real Copilot CLI ${COPILOT_CLI.version}, offline on a local model`, () => {
  it('writes one log per process and a session folder as the fixtures lay them out; a pass applies its log rule to an ended one', async (ctx) => {
    skipUnless(ctx);
    const w = world(server.port);
    const child = copilotIn(w, w.project);
    const pid = child.pid as number;
    await exited(child);
    expect(server.requests.some((request) => request.api === 'openai-chat')).toBe(true);

    expect(layoutOf(w.dir)).toEqual(['config.json', 'logs/', 'session-state/', 'session-store.db']);
    expect(layoutOf(path.join(w.dir, 'logs'))).toEqual([
      expect.stringMatching(new RegExp(`^process-\\d{13}-${pid}\\.log$`)),
    ]);
    const folder = onlySession(w);
    // A clean exit releases the in-use lock.
    expect(layoutOf(folder)).toEqual([
      'checkpoints/',
      'events.jsonl',
      'files/',
      'research/',
      'session.db',
      'workspace.yaml',
    ]);
    const workspace = parse(readFileSync(path.join(folder, 'workspace.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(workspace).sort()).toEqual(
      [
        'branch',
        'client_name',
        'created_at',
        'cwd',
        'git_root',
        'id',
        'name',
        'summary_count',
        'updated_at',
        'user_named',
      ].sort(),
    );
    expect(workspace).toMatchObject({
      id: path.basename(folder),
      cwd: w.project,
      git_root: w.project,
      user_named: false,
    });

    const log = logOf(w, pid);
    backdate(w.dir, daysAgo(8));
    const before = inventory(w.sandbox.root);
    const result = await run(w);
    expect(result.exitCode).toBe(0);
    expect(verdictOf(result, log)).toBe('deleted log-retention');
    expect(verdictOf(result, folder)).toBe('kept copilot-session');
    expect(detailOf(result, folder)).toContain(`working in ${w.project}`);
    expect(detailOf(result, folder)).toContain('; not in use;');
    const rel = (p: string) => path.relative(w.sandbox.root, p);
    expectOnly(before, inventory(w.sandbox.root), { removed: [rel(log)], changedDirs: [rel(path.dirname(log))] });
  });

  it('a live Copilot appends to its log without holding it open: the log stays while it runs, stopped or not, and goes after', async (ctx) => {
    skipUnless(ctx);
    const w = world(silent.port);
    const child = copilotIn(w, w.project);
    const pid = child.pid as number;
    const folder = await lockedSession(w, pid);
    expect(readFileSync(path.join(folder, `inuse.${pid}.lock`), 'utf8')).toBe(`${pid}\n`);
    const log = logOf(w, pid);
    // What the provider's rule rests on: the database stays open, the log only while a line is appended.
    await waitUntil('copilot to open its session store', () =>
      openFiles(pid).includes(path.join(w.dir, 'session-store.db')),
    );
    await waitUntil('copilot to be done writing its start to its log', () => !openFiles(pid).includes(log));
    backdate(w.dir, daysAgo(8));

    const live = await run(w);
    // A running Copilot may log a line meanwhile (its log then too recent to judge): never deleted.
    expect(['kept log-writer-live', 'refused too-recent']).toContain(verdictOf(live, log));
    expect(existsSync(log)).toBe(true);

    // Stopped between two lines of its log: holding it, it would be `in-use` (as alive as this).
    await waitUntil('copilot to stop between two writes', () => stoppedWithout(pid, log), { everyMs: 200 });
    backdate(w.dir, daysAgo(8));
    const stopped = await run(w);
    expect(verdictOf(stopped, log)).toBe('kept log-writer-live');
    expect(detailOf(stopped, log)).toContain(`the log of process ${pid} (copilot), which is alive`);
    // While Copilot has the session's session.db open the folder is held (in-use); else its lock tells.
    expect(['kept copilot-session', 'refused in-use']).toContain(verdictOf(stopped, folder));
    expect(detailOf(stopped, folder)).toMatch(new RegExp(`(in use by )?process ${pid} \\(`));

    await killHard(child);
    const after = await run(w);
    expect(verdictOf(after, log)).toBe('deleted log-retention');
    // Killed, it left its in-use lock behind.
    expect(detailOf(after, folder)).toContain(`not in use (its in-use locks name pid ${pid}, which has ended)`);
  });

  it('a session in a pull request’s worktree records that worktree as its git_root; the worktree stays while Copilot works there, and goes by the set’s rule after', async (ctx) => {
    skipUnless(ctx);
    const w = world(silent.port);
    // Made as Copilot's pull-request screen makes it; that screen needs a GitHub sign-in, which offline mode has not.
    const worktree = prWorktree(w.project, 12, 'fix/login');
    const child = copilotIn(w, worktree);
    const pid = child.pid as number;
    const folder = await lockedSession(w, pid);
    const workspace = parse(readFileSync(path.join(folder, 'workspace.yaml'), 'utf8')) as Record<string, unknown>;
    expect(workspace).toMatchObject({
      cwd: realpathSync(worktree),
      git_root: realpathSync(worktree),
      branch: 'fix/login',
    });
    const admin = sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
    const age = () => {
      for (const each of [worktree, admin]) backdate(each, daysAgo(10));
    };
    age();

    const live = await run(w, true);
    expect(verdictOf(live, worktree)).toBe('refused in-use');

    await killHard(child);
    age();
    const before = inventory(w.sandbox.root);
    const after = await run(w);
    expect(verdictOf(after, worktree)).toBe('deleted idle-clean');
    expect(detailOf(after, worktree)).toContain('set copilot (Copilot CLI)');
    const rel = (p: string) => path.relative(w.sandbox.root, p);
    expectOnly(before, inventory(w.sandbox.root), {
      removed: [rel(worktree), rel(path.dirname(admin))],
      changedDirs: [rel(path.dirname(worktree)), rel(path.join(w.project, '.git'))],
      ignore: (key) => key.startsWith('home/.copilot/'),
    });
  });
});
