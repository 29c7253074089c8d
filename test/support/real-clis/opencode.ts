import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { NpmCli } from './npm-cli.js';
import { killHard, runToEnd, startRunning, waitUntil } from './run.js';
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

/** A running `opencode serve` and its HTTP API (the one the TUI and the Desktop app use). */
export interface OpencodeServer {
  pid: number;
  /** `<method> <path>` against the server, in the work tree's directory; the parsed JSON answer. */
  call(method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * `opencode serve` on a port it chooses, in `cwd`, with `extraEnv` (say `OPENCODE_DB`); resolves once
 * it answers. Killed with SIGKILL by `stop`, as a crash would end it.
 */
export async function opencodeServe(
  oc: Opencode,
  cwd: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<OpencodeServer> {
  const child = startRunning(oc.bin, ['serve', '--port', '0', '--hostname', '127.0.0.1'], {
    cwd,
    env: { ...oc.sandbox.env, ...extraEnv },
    timeoutMs: 280_000,
  });
  oc.sandbox.leave(child.pid as number);
  const base = await waitUntil(
    'opencode serve to listen',
    () => /listening on (http:\/\/\S+)/.exec(child.output())?.[1],
    {
      timeoutMs: 60_000,
      context: child.output,
    },
  );
  const query = `directory=${encodeURIComponent(cwd)}`;
  const call = async (method: string, route: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}${route}${route.includes('?') ? '&' : '?'}${query}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 500)}`);
    return text === '' ? null : JSON.parse(text);
  };
  return { pid: child.pid as number, call, stop: () => killHard(child) };
}

/**
 * A session of the server in which the fake model runs one tool call for `prompt`; then, where
 * `revert` says, reverted to its first message, which is when opencode 1.18.33 writes
 * `storage/session_diff/<id>.json`. Resolves to the session's id.
 */
export async function opencodeSession(server: OpencodeServer, prompt: string, revert: boolean): Promise<string> {
  const { id } = (await server.call('POST', '/session', {})) as { id: string };
  await server.call('POST', `/session/${id}/message`, {
    model: { providerID: 'fake', modelID: 'fake-model' },
    parts: [{ type: 'text', text: prompt }],
  });
  if (revert) {
    const messages = (await server.call('GET', `/session/${id}/message`)) as Array<{
      info: { id: string; role: string };
    }>;
    const first = messages.find((message) => message.info.role === 'user');
    if (!first) throw new Error(`session ${id} has no message of the user`);
    await server.call('POST', `/session/${id}/revert`, { messageID: first.info.id });
  }
  return id;
}
