import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { expectOnlyRemoved } from '../../engines/vscode-storage/expect.js';
import { makeWorkspace } from '../../engines/vscode-storage/fixtures.js';
import {
  CLINE3,
  CLINE4,
  clineEnv,
  installCline3,
  installCline4,
  readJson,
  run,
  waitUntil,
  type Install,
} from './cline-cli.js';
import { startClineCore } from './cline-core.js';
import { startClineModelServer, type ClineModelServer } from './fake-model-server.mjs';

let cline3: Install;
let cline4: Install;
let server: ClineModelServer;

beforeAll(async () => {
  [cline3, cline4] = await Promise.all([installCline3(), installCline4()]);
  server = await startClineModelServer();
}, 900_000);

afterAll(async () => {
  await server?.close();
});

const gitIn = (cwd: string, args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Ana', '-c', 'user.email=ana@example.test', ...args], { cwd, encoding: 'utf8' });

describe(`the real Cline CLIs: ${CLINE3.spec} (Cline ${CLINE3.core}) makes checkpoints, ${CLINE4.cli} (Cline 4) leaves them`, () => {
  it('deletes the repository of a task Cline deleted, keeps the other, and reports it once Cline 4 is what uses the folder', async (ctx) => {
    for (const install of [cline3, cline4]) {
      if (!install.dir) {
        console.warn(`skipping the real Cline CLI test: ${install.why}`);
        ctx.skip(install.why);
      }
    }
    const dir3 = cline3.dir as string;
    const root = tempDir('aj-cline-cli-');
    const env = clineEnv(root);
    const home = env.HOME as string;
    mkdirSync(env.TMPDIR as string, { recursive: true });
    const data = path.join(home, '.cline', 'data');
    // What `cline auth -p openai -k x -m fake-model -b <url>` writes (the CLI cannot start its own
    // auth instance here in time, for the reason in cline-core.ts).
    mkdirSync(data, { recursive: true });
    writeFileSync(
      path.join(data, 'globalState.json'),
      JSON.stringify({
        actModeApiProvider: 'openai',
        planModeApiProvider: 'openai',
        actModeOpenAiModelId: 'fake-model',
        planModeOpenAiModelId: 'fake-model',
        openAiBaseUrl: `http://127.0.0.1:${server.port}/v1`,
        welcomeViewCompleted: true,
        mode: 'act',
      }),
    );
    writeFileSync(path.join(data, 'secrets.json'), JSON.stringify({ openAiApiKey: 'x' }));
    const workspaces = ['shop', 'blog'].map((name) => {
      const ws = makeWorkspace(path.join(home, 'work', name));
      gitIn(ws, ['init', '-q']);
      gitIn(ws, ['add', '-A']);
      gitIn(ws, ['commit', '-qm', 'first']);
      return ws;
    });
    const [shop, blog] = workspaces as [string, string];
    const tasksDir = path.join(data, 'tasks');
    const taskIds = () => (existsSync(tasksDir) ? readdirSync(tasksDir).sort() : []);
    const completed = (id: string) => {
      const file = path.join(tasksDir, id, 'ui_messages.json');
      return existsSync(file) && readFileSync(file, 'utf8').includes('completion_result');
    };
    const history = () => {
      const file = path.join(data, 'state', 'taskHistory.json');
      return existsSync(file) ? (readJson(file) as Array<{ id: string; cwdOnTaskInitialization?: string }>) : [];
    };

    // One task in each workspace, each through a Cline 3 instance whose host sits in that workspace.
    const ids: string[] = [];
    for (const ws of workspaces) {
      const core = await startClineCore(dir3, ws, env);
      try {
        const before = taskIds();
        await run(
          path.join(dir3, 'bin', 'cline-linux-amd64'),
          ['task', 'new', '--yolo', '--address', core.address, 'write hello'],
          {
            cwd: ws,
            env,
            timeoutMs: 120_000,
          },
        );
        await waitUntil('the task to appear', () => taskIds().length > before.length, 60_000);
        const id = taskIds().find((name) => !before.includes(name)) as string;
        await waitUntil(
          `task ${id} to complete`,
          () => completed(id) && history().some((item) => item.id === id),
          120_000,
        );
        ids.push(id);
        if (ws === blog) {
          // Cline's own deletion of the shop task, the way its history view asks for it.
          // A core still busy with the task that just ended may not act on the first request; asking
          // again is what a user clicking delete again does.
          const deleted = () => !history().some((item) => item.id === ids[0]);
          for (let attempt = 1; !deleted(); attempt += 1) {
            await core.deleteTasks([ids[0] as string]);
            await waitUntil('the deletion', deleted, 60_000).catch((err: unknown) => {
              if (attempt >= 4) throw err;
            });
          }
        }
      } catch (err) {
        throw new Error(`${(err as Error).message}\n${core.output().slice(-4000)}`);
      } finally {
        await core.close();
      }
    }
    const [deletedTask, liveTask] = ids as [string, string];

    // What Cline 3 left: a repository per workspace, made by initShadowGit, one commit per checkpoint.
    const repoOf = (ws: string) => path.join(data, 'checkpoints', hashWorkingDir(ws));
    for (const [ws, id] of [
      [shop, deletedTask],
      [blog, liveTask],
    ] as const) {
      const config = readFileSync(path.join(repoOf(ws), '.git', 'config'), 'utf8');
      expect(config).toContain(`worktree = ${ws}`);
      expect(config).toContain('name = Cline Checkpoint');
      expect(config).toContain('email = checkpoint@cline.bot');
      const subjects = gitIn(root, ['--git-dir', path.join(repoOf(ws), '.git'), 'log', '--all', '--format=%s'])
        .trim()
        .split('\n');
      expect(subjects.at(-1)).toBe('initial commit');
      expect(subjects).toContain(`checkpoint-${hashWorkingDir(ws)}-${id}`);
    }
    expect(existsSync(path.join(shop, 'hello.txt'))).toBe(true);
    // Cline's deletion left the task folder (its settings.json) and the whole repository behind.
    expect(history().map((item) => [item.id, item.cwdOnTaskInitialization])).toEqual([[liveTask, blog]]);
    // (A write Cline had in flight when the task went may leave its temporary file there too.)
    const leftInTask = readdirSync(path.join(tasksDir, deletedTask));
    expect(leftInTask).toContain('settings.json');
    expect(leftInTask.filter((name) => name !== 'settings.json' && !/\.json\.tmp/.test(name))).toEqual([]);
    expect(existsSync(repoOf(shop))).toBe(true);

    const work = tempDir('aj-cline-cli-run-');
    const passEnv = { HOME: '/nonexistent-home', CLINE_DIR: '', XDG_CONFIG_HOME: '' };
    const runPass = (reportOnly = false) =>
      pass({ dir: work, config: { homes: [home], minAge: '0s' }, only: ['cline'], env: passEnv, reportOnly });

    const before = inventory(root);
    const first = await runPass();
    expect(first.exitCode).toBe(0);
    expect(first.report.providers).toEqual([{ provider: 'cline', root: data, ok: true }]);
    expect(itemAt(first.report, repoOf(shop))).toMatchObject({ verdict: 'deleted', reason: 'task-deleted' });
    expect(itemAt(first.report, repoOf(shop)).detail).toContain(deletedTask);
    expect(itemAt(first.report, repoOf(blog))).toMatchObject({ verdict: 'kept', reason: 'task-in-history' });
    expectOnlyRemoved(root, before, inventory(root), [repoOf(shop)]);

    // Cline 4's CLI in the same home: its own session store, no shadow repository, and the legacy
    // history and repositories left exactly as they were.
    const bin4 = path.join(cline4.dir as string, 'bin', 'cline');
    const legacy = [path.join(data, 'checkpoints'), path.join(data, 'state'), tasksDir];
    const legacyBefore = legacy.map((folder) => inventory(folder));
    try {
      await run(
        bin4,
        ['auth', '-p', 'openai', '-k', 'x', '-m', 'fake-model', '-b', `http://127.0.0.1:${server.port}/v1`],
        { cwd: blog, env, timeoutMs: 180_000 },
      );
      await run(bin4, ['--json', 'say hi'], { cwd: blog, env, timeoutMs: 180_000 });
      const listed = await run(bin4, ['history', '--json'], { cwd: blog, env, timeoutMs: 180_000 });
      // Cline 4's CLI lists only its own sessions: the legacy task is not there to delete.
      expect(listed).not.toContain(liveTask);
    } finally {
      await run(bin4, ['hub', 'stop'], { cwd: blog, env, timeoutMs: 60_000 }).catch(() => '');
    }
    expect(existsSync(path.join(data, 'db', 'sessions.db'))).toBe(true);
    legacy.forEach((folder, index) => {
      expect(diffInventories(legacyBefore[index] as ReturnType<typeof inventory>, inventory(folder))).toEqual({
        removed: [],
        changed: [],
        added: [],
      });
    });

    const second = await runPass();
    const item = itemAt(second.report, repoOf(blog));
    expect(item).toMatchObject({ verdict: 'unfinished', reason: 'alive-legacy-format' });
    expect(item.detail).toContain(liveTask);
    expect(item.detail).toContain(path.join(data, 'db', 'sessions.db'));
    expect(item.bytes).toBeGreaterThan(0);
    expect(second.report.totals.deleted).toBe(0);
    expect(existsSync(repoOf(blog))).toBe(true);
  }, 900_000);
});
