import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { RawAnswer } from './answer.js';
import { onSilence, STOP_GRACE_MS, stopChild } from './stop.js';

export interface Supervision {
  /** The child is stopped after this long without printing anything. */
  silenceLimitMs: number;
  /** Stopping it signals its process group (a child started `detached`: a shell and the git it waits on). */
  group?: boolean;
  /** Aborting stops the child. */
  abort?: AbortSignal;
}

/**
 * The one watch kept over every git child (start.ts): every byte it writes, its exit code once its output has closed, and its end when it goes
 * silent for too long or the run is aborted (stop.ts: SIGINT, SIGKILL after a grace, pipes closed).
 * Resolves with the answer; rejects when there is none: the child could not start, or was stopped.
 */
export function superviseChild(child: ChildProcess, supervision: Supervision): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    let stopped: string | null = null;
    const stop = (why: string): void => {
      if (stopped !== null) return;
      stopped = why;
      stopChild(child, STOP_GRACE_MS, { group: supervision.group ?? false });
    };
    onSilence(child, supervision.silenceLimitMs, () =>
      stop(`timeout: killed after ${supervision.silenceLimitMs} ms without output`),
    );
    const aborted = (): void => stop('aborted');
    const { abort } = supervision;
    if (abort?.aborted) aborted();
    else abort?.addEventListener('abort', aborted, { once: true });
    let failed: Error | null = null;
    child.on('error', (error) => {
      failed ??= error;
    });
    child.on('close', (code, signal) => {
      abort?.removeEventListener('abort', aborted);
      if (failed) reject(failed);
      else if (stopped !== null) reject(new Error(stopped));
      else
        resolve({
          // A git ended by a signal no one here sent (a crash, the OOM killer) answers as a shell would.
          code: code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0),
          stdout: Buffer.concat(out),
          stderr: Buffer.concat(err),
        });
    });
  });
}
