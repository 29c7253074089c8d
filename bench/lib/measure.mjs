import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIME = '/usr/bin/time';
const POLL_MS = 20;

/**
 * Runs a command to its end and answers its wall time and, sampled from /proc while it runs, the
 * most file descriptors, directory descriptors and child processes it held at once. Peak RSS comes
 * from /usr/bin/time (the kernel's own maximum) where it is installed, else from VmHWM as sampled.
 */
export function measure(command, args, options = {}) {
  const timeFile = path.join(os.tmpdir(), `aj-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const viaTime = existsSync(TIME);
  const [file, argv] = viaTime ? [TIME, ['-f', '%M', '-o', timeFile, command, ...args]] : [command, args];
  const started = performance.now();
  const child = spawn(file, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', options.capture ? 'pipe' : 'ignore', 'pipe'],
  });
  const samples = { fds: 0, dirFds: 0, children: 0, hwmKb: 0 };
  let target = viaTime ? null : child.pid;
  const poll = setInterval(() => {
    target ??= firstChild(child.pid);
    if (target) sample(target, samples);
  }, POLL_MS);
  const out = [];
  const err = [];
  child.stdout?.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      clearInterval(poll);
      let peakRssKb = samples.hwmKb;
      if (viaTime) {
        const reported = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop());
        if (Number.isFinite(reported) && reported > 0) peakRssKb = reported;
        rmSync(timeFile, { force: true });
      }
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== 0 && !options.allowFailure) {
        reject(
          new Error(
            `${command} ${args.slice(0, 4).join(' ')} … exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
        return;
      }
      resolve({
        ms,
        code,
        peakRssKb,
        maxFds: samples.fds,
        maxDirFds: samples.dirFds,
        maxChildren: samples.children,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr,
      });
    });
  });
}

function firstChild(pid) {
  const kids = childrenOf(pid);
  return kids.length > 0 ? kids[0] : null;
}

function childrenOf(pid) {
  const kids = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) kids.push(...text.split(' ').map(Number));
    }
  } catch {
    // Gone meanwhile.
  }
  return kids;
}

function sample(pid, samples) {
  try {
    const fds = readdirSync(`/proc/${pid}/fd`);
    samples.fds = Math.max(samples.fds, fds.length);
    let dirs = 0;
    for (const fd of fds) {
      try {
        if (statSync(`/proc/${pid}/fd/${fd}`).isDirectory()) dirs += 1;
      } catch {
        // Closed between the listing and the look.
      }
    }
    samples.dirFds = Math.max(samples.dirFds, dirs);
    samples.children = Math.max(samples.children, descendants(pid));
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (hwm) samples.hwmKb = Math.max(samples.hwmKb, Number(hwm[1]));
  } catch {
    // The process ended between two samples.
  }
}

/** Every live process below `pid` (a git that runs a helper counts too). */
function descendants(pid) {
  let count = 0;
  const pending = [pid];
  while (pending.length > 0) {
    for (const kid of childrenOf(pending.pop())) {
      count += 1;
      pending.push(kid);
    }
  }
  return count;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
