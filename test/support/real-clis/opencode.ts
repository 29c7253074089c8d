import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { NpmCli } from './npm-cli.js';
import { runToEnd } from './run.js';
import type { CliSandbox } from './sandbox.js';

/** opencode (npm `opencode-ai`, whose `opencode-linux-x64` holds a self-contained executable). */
export const OPENCODE: NpmCli = {
  name: 'opencode-ai',
  version: '1.18.33',
  bin: 'opencode-linux-x64/bin/opencode',
  platforms: ['linux-x64'],
};

export interface Opencode {
  bin: string;
  sandbox: CliSandbox;
  /** `<XDG_DATA_HOME>/opencode`. */
  data: string;
  state: string;
}

/** Points opencode at the fake model server (an OpenAI-compatible provider `fake`); no update, share or models fetch. */
export function opencodeIn(bin: string, sandbox: CliSandbox, port: number): Opencode {
  const config = path.join(sandbox.env.XDG_CONFIG_HOME as string, 'opencode');
  mkdirSync(config, { recursive: true });
  writeFileSync(
    path.join(config, 'opencode.json'),
    JSON.stringify({
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'x' },
          models: { 'fake-model': {} },
        },
      },
      model: 'fake/fake-model',
      autoupdate: false,
      share: 'disabled',
    }),
  );
  Object.assign(sandbox.env, {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
  });
  return {
    bin,
    sandbox,
    data: path.join(sandbox.env.XDG_DATA_HOME as string, 'opencode'),
    state: path.join(sandbox.env.XDG_STATE_HOME as string, 'opencode'),
  };
}

/** One turn of `opencode run` in `cwd`: it snapshots the work tree before and after. */
export function opencodeRun(oc: Opencode, cwd: string, prompt = 'say hi'): Promise<string> {
  return runToEnd(oc.bin, ['run', '-m', 'fake/fake-model', prompt], { cwd, env: oc.sandbox.env, timeoutMs: 120_000 });
}

/** `<data>/snapshot/<project id>/<sha1 of the work tree's path>`. */
export function snapshotRepoOf(oc: Opencode, projectId: string, worktree: string): string {
  return path.join(oc.data, 'snapshot', projectId, createHash('sha1').update(worktree).digest('hex'));
}
