import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from '../util/builtins.js';
import { closeSync, openPathSync } from '../safety/fs.js';
import type { Owner } from '../safety/owner.js';
import { gitEnvironment, SAFE_ARGUMENTS } from './settings.js';
import { stopChild } from './stop.js';

/**
 * The one git run that does not go through simple-git: an absolute path argument that is not
 * UTF-8 and that no working directory can stand for (`git worktree remove <worktree>` run in the
 * owner repository). git must open such a path itself, after it has started, so the path is opened
 * here and given to git as a descriptor it inherits (`/proc/self/fd/<n>`, which names that very
 * entry). simple-git's spawn options carry only uid and gid, never descriptors, so this run starts
 * git itself, with everything else as the runner sets it: the same environment and `-c` settings,
 * the owner's uid and gid, a time limit that kills git.
 */
export interface DescriptorRun {
  /** As the caller gave it: handed over as well when it is not UTF-8. */
  cwd: string | undefined;
  owner: Owner | null;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  input?: Buffer;
}

export interface RawAnswer {
  code: number;
  stdout: Buffer;
  stderr: Buffer;
}

export function runWithDescriptors(args: readonly string[], run: DescriptorRun): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const fds: number[] = [];
    const passed: string[] = [];
    let child: ChildProcessWithoutNullStreams;
    // The child's descriptors 3, 4, … are the paths handed over; it enters its working directory
    // once they are in place.
    const handOver = (p: string): string => {
      fds.push(openPathSync(p));
      return `/proc/self/fd/${2 + fds.length}`;
    };
    try {
      const cwd = run.cwd === undefined ? '/' : run.cwd.isWellFormed() ? run.cwd : handOver(run.cwd);
      for (const arg of args) passed.push(arg.isWellFormed() ? arg : handOver(arg));
      child = spawn('git', [...SAFE_ARGUMENTS, ...passed], {
        cwd,
        env: gitEnvironment(run.env),
        stdio: ['pipe', 'pipe', 'pipe', ...fds],
        ...(run.owner ? { uid: run.owner.uid, gid: run.owner.gid } : {}),
      }) as ChildProcessWithoutNullStreams;
    } catch (err) {
      reject(err);
      return;
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    // git may exit before reading it all: its exit code tells, not EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(run.input);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      stopChild(child);
    }, run.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (killed) reject(new Error(`timeout: killed after ${run.timeoutMs} ms`));
      else resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
}
