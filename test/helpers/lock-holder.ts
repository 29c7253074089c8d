import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach } from 'vitest';
import { CLI } from './cli.js';

const holders: ChildProcess[] = [];

/**
 * A real second process that holds the run lock of `reportDir` (through the built module, as a
 * concurrent pass would) until it is killed; resolves once it holds the lock.
 */
export async function holdRunLock(reportDir: string): Promise<ChildProcess> {
  const module = path.join(path.dirname(CLI), 'safety', 'locks', 'run-lock.js');
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      [
        `import { acquireRunLock } from ${JSON.stringify(module)};`,
        `await acquireRunLock(${JSON.stringify(reportDir)});`,
        'console.log("locked");',
        'setInterval(() => {}, 60_000);',
      ].join('\n'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  holders.push(holder);
  await new Promise<void>((resolve, reject) => {
    holder.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    holder.once('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
  return holder;
}

afterEach(() => {
  for (const holder of holders.splice(0)) if (holder.exitCode === null) holder.kill('SIGKILL');
});
