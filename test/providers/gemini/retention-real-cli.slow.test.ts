import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGeminiProcess } from '../../../src/providers/gemini/layout.js';
import { geminiWorkingIn } from '../../../src/providers/gemini/running.js';
import { scanProcesses } from '../../../src/safety/processes/processes.js';
import { expectOnlyRemoved } from '../../engines/vscode-storage/expect.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { GEMINI_CLI, geminiIn, geminiRun } from '../../support/real-clis/gemini.js';
import { makeProject } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { killHard, startRunning, stateOf, treeOf, waitUntil } from '../../support/real-clis/run.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';

let gemini: CliInstall;
let server: FakeModelServer;
/** What the fake model does on its first turn: write a file, or run a shell command that takes a while. */
let firstTurn: { tool: { name: string; input: Record<string, unknown> } } = {
  tool: { name: 'write_file', input: {} },
};

beforeAll(async () => {
  gemini = await installNpmCli(GEMINI_CLI);
  server = await startFakeModelServer({
    reply: (turn) => (turn.toolResults === 0 ? firstTurn : { text: 'Done.' }),
  });
}, 320_000);

afterAll(async () => {
  await server?.close();
});

const DAY = 86_400_000;

/**
 * Gemini CLI's own session retention, applied to sessions the real Gemini CLI wrote: its chat files,
 * judged 40 days later (the pass's clock), and a live Gemini CLI, found by the same code a pass uses.
 */
describe(`the real Gemini CLI ${GEMINI_CLI.version}: its own session retention in every project`, () => {
  it('removes the real sessions of every project once past maxAge, and a running one keeps its project', async (ctx) => {
    if (gemini.why !== undefined) {
      console.warn(`skipping a real Gemini CLI test: ${gemini.why}`);
      ctx.skip(gemini.why);
    }
    const sandbox = cliSandbox(tempDir('aj-gemini-retention-'));
    const cli = geminiIn(gemini.bin as string, sandbox, server.port);
    const app = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    const blog = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'blog'));
    for (const [project, prompt] of [
      [app, 'write hello'],
      [app, 'again'],
      [blog, 'write hello'],
    ] as const) {
      firstTurn = {
        tool: { name: 'write_file', input: { file_path: path.join(project, 'hello.txt'), content: 'hi\n' } },
      };
      await geminiRun(cli, project, prompt);
    }
    const chats = (slug: string) =>
      readdirSync(path.join(cli.dir, 'tmp', slug, 'chats')).map((name) =>
        path.join(cli.dir, 'tmp', slug, 'chats', name),
      );
    const appChats = chats('app');
    const blogChats = chats('blog');
    expect(appChats).toHaveLength(2);
    expect(blogChats).toHaveLength(1);
    const later = () => new Date(Date.now() + 40 * DAY);
    const run = (reportOnly: boolean) =>
      pass({
        dir: tempDir('aj-gemini-retention-run-'),
        config: { homes: [sandbox.home], minAge: '0s', providers: { gemini: { applyOwnerRetention: true } } },
        only: ['gemini'],
        reportOnly,
        env: {
          HOME: '/nonexistent-home',
          GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(sandbox.root, 'etc', 'settings.json'),
        },
        clock: later,
      });

    // A Gemini CLI at work in the app: its model runs a shell command that takes a while.
    firstTurn = { tool: { name: 'run_shell_command', input: { command: 'sleep 20', description: 'wait' } } };
    const running = startRunning(process.execPath, [gemini.bin as string, '-m', 'fake-model', '--yolo', '-p', 'wait'], {
      cwd: app,
      env: sandbox.env,
      timeoutMs: 120_000,
    });
    try {
      const identity = statSync(app);
      const seen = await waitUntil(
        'the running Gemini CLI, found working in the app',
        () => {
          const table = scanProcesses('/proc', new Set([process.pid]), ['GEMINI_CLI']);
          const cli = [...table.records.values()].find(
            (record) => isGeminiProcess(record) && record.vars?.GEMINI_CLI !== '1' && record.cwd === app,
          );
          const shell = [...table.records.values()].find(
            (record) => record.vars?.GEMINI_CLI === '1' && record.cwd === app,
          );
          return cli && shell ? geminiWorkingIn({ dev: identity.dev, ino: identity.ino }, table) : null;
        },
        { timeoutMs: 90_000, context: running.output },
      );
      // Gemini CLI, the copy of itself it relaunches with more memory, and the shell it started.
      expect(seen).toMatch(/^processes \d+ \(.*gemini-cli/);

      const { report } = await run(true);
      for (const chat of appChats)
        expect(itemAt(report, chat)).toMatchObject({ verdict: 'refused', reason: 'gemini-running' });
      expect(itemAt(report, blogChats[0] as string)).toMatchObject({
        verdict: 'would-delete',
        reason: 'gemini-session-expired',
      });
    } finally {
      // The whole tree: the shell command it started (`GEMINI_CLI=1`) would count as a Gemini CLI at work.
      const tree = treeOf(running.pid as number);
      for (const pid of tree.slice(1)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await killHard(running);
      await waitUntil('the Gemini CLI and its children to end', () =>
        tree.every((pid) => stateOf(pid) === null || stateOf(pid) === 'Z'),
      );
    }

    // With no Gemini CLI running, 40 days on, every session it wrote goes; nothing else of it.
    const appNow = chats('app');
    const before = inventory(sandbox.root);
    const { report } = await run(false);
    for (const chat of [...appNow, ...blogChats])
      expect(itemAt(report, chat)).toMatchObject({ verdict: 'deleted', reason: 'gemini-session-expired' });
    expectOnlyRemoved(sandbox.root, before, inventory(sandbox.root), [...appNow, ...blogChats]);

    // Gemini CLI runs on in the project as before.
    firstTurn = { tool: { name: 'write_file', input: { file_path: path.join(app, 'hello.txt'), content: 'again\n' } } };
    await geminiRun(cli, app, 'once more');
    expect(chats('app')).toHaveLength(1);
  }, 300_000);
});
