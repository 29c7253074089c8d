import { parentPort } from 'node:worker_threads';
import { utimesSync } from '../../safety/fs/write.js';

/**
 * The thread that keeps Kilo's snapshot locks held by this process fresh (./lock.ts starts it by
 * path, built into dist/). It is given only heartbeat files' paths and touches nothing else; once
 * it has answered a stop, that file is never touched again.
 */
export type HeartbeatMessage = { start: true; id: number; file: string; everyMs: number } | { stop: true; id: number };

export interface HeartbeatReply {
  stopped: number;
}

const beats = new Map<number, NodeJS.Timeout>();

parentPort?.on('message', (message: HeartbeatMessage) => {
  if ('start' in message) {
    const { file, everyMs } = message;
    beats.set(
      message.id,
      setInterval(() => {
        const now = new Date();
        try {
          utimesSync(file, now, now);
        } catch {
          // A lock folder gone or broken by another holder: release finds out; nothing to do here.
        }
      }, everyMs),
    );
    return;
  }
  clearInterval(beats.get(message.id));
  beats.delete(message.id);
  parentPort?.postMessage({ stopped: message.id } satisfies HeartbeatReply);
});
