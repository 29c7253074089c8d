import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import {
  GEMINI_CLI,
  geminiIn,
  geminiRun,
  QWEN_CODE,
  QWEN_CODE_SHADOW,
  qwenIn,
  writeFileScript,
} from '../../support/real-clis/gemini.js';
import { killGitMidPack } from '../../support/real-clis/git-garbage.js';
import { gitWith, layoutOf, makeProject } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { cliSandbox } from '../../support/real-clis/sandbox.js';

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

const skipUnless = (install: CliInstall, ctx: { skip(why: string): void }) => {
  if (install.why !== undefined) {
    console.warn(`skipping a real Gemini CLI / Qwen Code test: ${install.why}`);
    ctx.skip(install.why);
  }
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the real Gemini CLI and Qwen Code, checkpointing on', () => {
  it(`Gemini CLI ${GEMINI_CLI.version} keeps a shadow repository per project under ~/.gemini/history/<slug>`, async (ctx) => {
    skipUnless(gemini, ctx);
    const sandbox = cliSandbox(tempDir('aj-gemini-cli-'));
    const cli = geminiIn(gemini.bin as string, sandbox, server.port);
    project = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));

    await geminiRun(cli, project, 'write hello');
    expect(readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(server.requests.some((r) => r.url === '/v1beta/models/fake-model:streamGenerateContent?alt=sse')).toBe(true);

    expect(JSON.parse(readFileSync(path.join(cli.dir, 'projects.json'), 'utf8'))).toEqual({
      projects: { [project]: 'app' },
    });
    const history = path.join(cli.dir, 'history', 'app');
    expect(layoutOf(path.join(cli.dir, 'history'))).toEqual(['app/']);
    expect(layoutOf(history)).toEqual([
      '.git/',
      '.gitconfig',
      '.gitconfig_system_empty',
      '.gitignore',
      '.project_root',
    ]);
    expect(readFileSync(path.join(history, '.project_root'), 'utf8')).toBe(project);
    expect(readFileSync(path.join(history, '.gitconfig'), 'utf8')).toBe(
      '[user]\n  name = Gemini CLI\n  email = gemini-cli@google.com\n[commit]\n  gpgsign = false\n',
    );
    // The work tree is given on each git command line: the shadow repository's config does not name it.
    const gitDir = path.join(history, '.git');
    expect(gitWith(sandbox.env, ['config', '--file', path.join(gitDir, 'config'), '--list'])).not.toContain('worktree');
    // A non-interactive run makes the repository and its first commit, but no checkpoint.
    expect(gitWith(sandbox.env, ['--git-dir', gitDir, 'log', '--all', '--format=%s'])).toBe('Initial commit\n');
    const tmp = path.join(cli.dir, 'tmp', 'app');
    expect(layoutOf(tmp)).toEqual(['.project_root', 'chats/', 'logs/']);
    expect(layoutOf(path.join(tmp, 'chats'))).toEqual([expect.stringMatching(/^session-.*\.jsonl$/)]);

    const killed = await killGitMidPack({ gitDir, workTree: project, env: sandbox.env });
    expect(path.dirname(killed.tmpPack)).toBe(path.join(gitDir, 'objects', 'pack'));
    expect(gitWith(sandbox.env, ['--git-dir', gitDir, 'count-objects', '-v'])).toMatch(/^garbage: 1$/m);
  }, 180_000);

  it(`Qwen Code ${QWEN_CODE_SHADOW.version} keeps it under ~/.qwen/history/<sha256 of the project>`, async (ctx) => {
    skipUnless(qwenShadow, ctx);
    const sandbox = cliSandbox(tempDir('aj-qwen-cli-'));
    const cli = qwenIn(qwenShadow.bin as string, sandbox, server.port);
    project = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));

    await geminiRun(cli, project, 'write hello');
    expect(readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('hello\n');
    const history = path.join(cli.dir, 'history', sha256(project));
    expect(layoutOf(path.join(cli.dir, 'history'))).toEqual([`${sha256(project)}/`]);
    expect(layoutOf(history)).toEqual(['.git/', '.gitconfig', '.gitignore']);
    expect(gitWith(sandbox.env, ['--git-dir', path.join(history, '.git'), 'log', '--all', '--format=%an %s'])).toBe(
      'Qwen Code Initial commit\n',
    );
    // No projects.json and no tmp/<slug>: the chats are under projects/<path with every non-alphanumeric as ->.
    expect(existsSync(path.join(cli.dir, 'projects.json'))).toBe(false);
    const slug = project.replace(/[^A-Za-z0-9]/g, '-');
    expect(layoutOf(path.join(cli.dir, 'projects', slug))).toEqual(['chats/']);

    const killed = await killGitMidPack({ gitDir: path.join(history, '.git'), workTree: project, env: sandbox.env });
    expect(path.basename(killed.tmpPack)).toMatch(/^tmp_pack_/);
  }, 180_000);

  it(`Qwen Code ${QWEN_CODE.version} keeps no shadow repository at all`, async (ctx) => {
    skipUnless(qwen, ctx);
    const sandbox = cliSandbox(tempDir('aj-qwen-cli-'));
    const cli = qwenIn(qwen.bin as string, sandbox, server.port);
    project = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));

    await geminiRun(cli, project, 'write hello');
    expect(readFileSync(path.join(project, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(path.join(cli.dir, 'history'))).toBe(false);
    const slug = project.replace(/[^A-Za-z0-9]/g, '-');
    expect(layoutOf(path.join(cli.dir, 'projects', slug), 2)).toEqual([
      'chats/',
      expect.stringMatching(/^chats\/[0-9a-f-]{36}\.jsonl$/),
    ]);
    expect(layoutOf(path.join(cli.dir, 'tmp'))).toEqual([`${sha256(project)}/`]);
  }, 180_000);
});
