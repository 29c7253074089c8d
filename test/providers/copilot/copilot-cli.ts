import net from 'node:net';
import path from 'node:path';
import type { NpmCli } from '../../support/real-clis/npm-cli.js';
import type { CliSandbox } from '../../support/real-clis/sandbox.js';

/**
 * GitHub Copilot CLI (npm `@github/copilot`): the launcher `npm-loader.js` starts the native
 * `copilot` of `@github/copilot-linux-x64`, which is what runs here (it carries its own Node.js; the
 * launcher's fallback needs Node 24). 1.0.60 is the last version whose npm package ships readable
 * JavaScript (`app.js`), from which the provider's facts were read; later ones ship a compressed
 * single executable.
 */
export const COPILOT_CLI: NpmCli = {
  name: '@github/copilot',
  version: '1.0.60',
  bin: '@github/copilot-linux-x64/copilot',
  platforms: ['linux-x64'],
};

/**
 * Copilot CLI in offline mode (`COPILOT_OFFLINE`: no GitHub sign-in, no telemetry, no update) on a
 * local model through its bring-your-own-model variables, speaking OpenAI chat completions. Its
 * first start unpacks itself into `$COPILOT_CACHE_HOME` (176 MB), shared here by every sandbox.
 */
export function copilotEnv(sandbox: CliSandbox, port: number, cache: string): void {
  Object.assign(sandbox.env, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}/v1`,
    COPILOT_PROVIDER_MODEL_ID: 'fake-model',
    COPILOT_PROVIDER_API_KEY: 'x',
    COPILOT_CACHE_HOME: cache,
  });
}

/** `copilot -p <prompt>`, tools allowed: one turn, then it exits. */
export const promptArgs = (prompt: string): string[] => ['-p', prompt, '--allow-all-tools'];

/** Where the unpacked CLI is kept across sandboxes: beside the install. */
export const cacheBeside = (bin: string): string =>
  path.join(bin.slice(0, bin.indexOf(`${path.sep}node_modules${path.sep}`)), 'copilot-cache');

/**
 * A model server that takes a request and never answers: a Copilot waiting on it stays live, with
 * its session open, for as long as the test needs.
 */
export function silentModelServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
