import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { NpmCli } from './npm-cli.js';
import { runToEnd } from './run.js';
import type { CliSandbox } from './sandbox.js';

/** Gemini CLI (npm `@google/gemini-cli`, a Node.js bundle). */
export const GEMINI_CLI: NpmCli = {
  name: '@google/gemini-cli',
  version: '0.61.0',
  bin: '@google/gemini-cli/bundle/gemini.js',
};

/** The last Qwen Code on npm that keeps shadow repositories (`~/.qwen/history/<sha256>/`). */
export const QWEN_CODE_SHADOW: NpmCli = {
  name: '@qwen-code/qwen-code',
  version: '0.15.10',
  bin: '@qwen-code/qwen-code/cli.js',
};

/** Today's Qwen Code: file checkpoints, no shadow repository. */
export const QWEN_CODE: NpmCli = {
  name: '@qwen-code/qwen-code',
  version: '0.24.4',
  bin: '@qwen-code/qwen-code/cli-entry.js',
};

export interface GeminiLike {
  bin: string;
  sandbox: CliSandbox;
  /** `~/.gemini` or `~/.qwen`. */
  dir: string;
}

/** Gemini CLI on the fake server's Gemini API, checkpointing on, the workspace trusted. */
export function geminiIn(bin: string, sandbox: CliSandbox, port: number): GeminiLike {
  const dir = path.join(sandbox.home, '.gemini');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({
      general: { checkpointing: { enabled: true } },
      security: { auth: { selectedType: 'gemini-api-key' } },
    }),
  );
  Object.assign(sandbox.env, {
    GEMINI_API_KEY: 'x',
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  });
  return { bin, sandbox, dir };
}

/** Qwen Code on the fake server's OpenAI chat API, checkpointing on. */
export function qwenIn(bin: string, sandbox: CliSandbox, port: number): GeminiLike {
  const dir = path.join(sandbox.home, '.qwen');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({ general: { checkpointing: { enabled: true } }, security: { auth: { selectedType: 'openai' } } }),
  );
  Object.assign(sandbox.env, {
    OPENAI_API_KEY: 'x',
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    OPENAI_MODEL: 'fake-model',
  });
  return { bin, sandbox, dir };
}

/** One non-interactive turn, tools approved (`--yolo`). */
export function geminiRun(cli: GeminiLike, cwd: string, prompt: string): Promise<string> {
  return runToEnd(cli.bin, ['-m', 'fake-model', '--yolo', '-p', prompt], {
    cwd,
    env: cli.sandbox.env,
    timeoutMs: 120_000,
  });
}

/** The fake model's part: it calls write_file for `hello.txt` in the current project, then ends the turn. */
export function writeFileScript(project: () => string) {
  return (turn: { tools: string[]; toolResults: number }) =>
    turn.toolResults === 0
      ? { tool: { name: 'write_file', input: { file_path: path.join(project(), 'hello.txt'), content: 'hello\n' } } }
      : { text: 'Done.' };
}
