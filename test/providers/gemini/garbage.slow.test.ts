import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import {
  GEMINI_CLI,
  type GeminiLike,
  geminiIn,
  geminiRun,
  QWEN_CODE,
  QWEN_CODE_SHADOW,
  qwenIn,
  writeFileScript,
} from '../../support/real-clis/gemini.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { gitWith, makeProject } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';

/**
 * The real Gemini CLI and Qwen Code, checkpointing on, leave a shadow repository per project; a
 * `git add` killed mid-pack in it leaves `objects/pack/tmp_pack_*` neither ever removes. A pass
 * deletes that one file and reports the rest of the project: every other byte of the home stays.
 */

let gemini: CliInstall;
let qwenShadow: CliInstall;
let qwen: CliInstall;
let server: FakeModelServer;
let project = '';

beforeAll(async () => {
  [gemini, qwenShadow, qwen] = await Promise.all([
    installNpmCli(GEMINI_CLI),
    installNpmCli(QWEN_CODE_SHADOW),
    installNpmCli(QWEN_CODE),
  ]);
  server = await startFakeModelServer({ reply: writeFileScript(() => project) });
}, 320_000);

afterAll(async () => {
  await server?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One real turn in a new project, in a sandbox of its own. */
async function turn(install: CliInstall, make: typeof geminiIn, prefix: string) {
  const sandbox = cliSandbox(tempDir(prefix));
  const cli: GeminiLike = make(install.bin as string, sandbox, server.port);
  project = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
  await geminiRun(cli, project, 'write hello');
  return { sandbox, cli, project };
}

function runPass(home: string) {
  return pass({
    dir: tempDir('aj-gemini-garbage-run-'),
    config: { homes: [home], minAge: '0s' },
    only: ['gemini'],
    env: { HOME: home },
  });
}

function expectOnlyGone(root: string, before: ReturnType<typeof inventory>, tmpPack: string): void {
  const diff = diffInventories(before, inventory(root));
  expect(diff).toEqual({
    removed: [path.relative(root, tmpPack)],
    changed: [path.relative(root, path.dirname(tmpPack))],
    added: [],
  });
}

describe('git garbage in the shadow repositories of the real Gemini CLI and Qwen Code', () => {
  it(`Gemini CLI ${GEMINI_CLI.version}: the tmp_pack goes; the repository, its commit and the chats are reported and stay`, async (ctx) => {
    if (gemini.why !== undefined) ctx.skip(gemini.why);
    const { sandbox, cli, project: app } = await turn(gemini, geminiIn, 'aj-gemini-garbage-');
    const history = path.join(cli.dir, 'history', 'app');
    const gitDir = path.join(history, '.git');
    const tree = gitWith(sandbox.env, ['--git-dir', gitDir, 'rev-parse', 'HEAD^{tree}']).trim();
    const killed = await killGitMidPack({ gitDir, workTree: app, env: sandbox.env });
    const before = inventory(sandbox.root);

    const { report, exitCode } = await runPass(sandbox.home);

    expect(exitCode).toBe(0);
    expect(itemAt(report, killed.tmpPack)).toMatchObject({
      provider: 'gemini',
      kind: 'git-garbage',
      verdict: 'deleted',
      reason: 'git-temporary',
      bytes: killed.bytes,
    });
    const repo = itemAt(report, history);
    expect(repo).toMatchObject({ kind: 'checkpoint-repo', verdict: 'kept', reason: 'project-history' });
    expect(repo.detail).toContain(`of ${app}, which exists, registered in projects.json as app`);
    expect(itemAt(report, path.join(cli.dir, 'tmp', 'app'))).toMatchObject({
      kind: 'task-folder',
      verdict: 'kept',
      reason: 'project-scratch',
    });
    expect(report.totals.deleted).toBe(1);
    expectOnlyGone(sandbox.root, before, killed.tmpPack);
    expect(gitWith(sandbox.env, ['--git-dir', gitDir, 'cat-file', '-t', tree]).trim()).toBe('tree');
  }, 300_000);

  it(`Qwen Code ${QWEN_CODE_SHADOW.version}: the same in ~/.qwen/history/<sha256>, whose project is recorded nowhere`, async (ctx) => {
    if (qwenShadow.why !== undefined) ctx.skip(qwenShadow.why);
    const { sandbox, cli, project: app } = await turn(qwenShadow, qwenIn, 'aj-qwen-garbage-');
    const history = path.join(cli.dir, 'history', sha256(app));
    const killed = await killGitMidPack({ gitDir: path.join(history, '.git'), workTree: app, env: sandbox.env });
    const before = inventory(sandbox.root);

    const { report, exitCode } = await runPass(sandbox.home);

    expect(exitCode).toBe(0);
    expect(itemAt(report, killed.tmpPack)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expect(itemAt(report, history)).toMatchObject({ verdict: 'kept', reason: 'project-history' });
    expect(itemAt(report, history).detail).toContain(
      "Qwen Code's checkpoint shadow repository of an unrecorded project",
    );
    expectOnlyGone(sandbox.root, before, killed.tmpPack);
  }, 300_000);

  it(`Qwen Code ${QWEN_CODE.version}: no shadow repository; its tmp/<sha256> is reported, nothing deleted`, async (ctx) => {
    if (qwen.why !== undefined) ctx.skip(qwen.why);
    const { sandbox, cli } = await turn(qwen, qwenIn, 'aj-qwen-new-');
    const before = inventory(sandbox.root);

    const { report, exitCode } = await runPass(sandbox.home);

    expect(exitCode).toBe(0);
    expect(report.items.map((item) => `${item.kind} ${item.verdict} ${item.reason} ${item.path}`)).toEqual([
      `task-folder kept project-scratch ${path.join(cli.dir, 'tmp', sha256(project))}`,
    ]);
    expect(diffInventories(before, inventory(sandbox.root))).toEqual({ removed: [], changed: [], added: [] });
  }, 300_000);
});
