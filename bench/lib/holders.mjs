import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureDir } from './files.mjs';

export const HOLDERS = 500;
const FILES_PER_HOLDER = 100;

/**
 * A busy shared host: HOLDERS `sleep` processes, each holding FILES_PER_HOLDER files of its own
 * open (inherited through spawn's stdio array), 50,000 open files in all, in a folder outside the
 * fleet's roots so the report is the same. Answers a function that stops them all and waits.
 */
export async function startHolders(dir) {
  const folder = path.join(dir, 'held');
  ensureDir(folder);
  const children = [];
  try {
    for (let p = 0; p < HOLDERS; p += 1) {
      const fds = [];
      try {
        for (let f = 0; f < FILES_PER_HOLDER; f += 1) {
          const file = path.join(folder, `p${p}-f${f}.log`);
          if (!existsSync(file)) writeFileSync(file, '');
          fds.push(openSync(file, 'r'));
        }
        children.push(spawn('sleep', ['3600'], { stdio: ['ignore', 'ignore', 'ignore', ...fds] }));
      } finally {
        for (const fd of fds) closeSync(fd);
      }
    }
    await Promise.all(children.map((child) => new Promise((resolve) => child.once('spawn', resolve))));
  } catch (err) {
    await stop(children);
    throw err;
  }
  return () => stop(children);
}

async function stop(children) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) resolve();
          else {
            child.once('exit', resolve);
            child.kill('SIGKILL');
          }
        }),
    ),
  );
}
