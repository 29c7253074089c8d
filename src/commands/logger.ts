import { writeToDescriptorSync } from '../safety/fs/write.js';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { escapedLogFields } from '../core/escape.js';
import type { TerminalProgress } from '../outputs/progress.js';
import type { LogLevel } from './log-levels.js';

// A name that is not UTF-8 is logged with its bytes escaped, as the report writes it.
const formatters = { log: escapedLogFields };

/**
 * JSON lines on stderr; readable lines, one a record, when stderr is a terminal. Never stdout, which
 * is the report's. A progress line on that terminal is taken away while a log line is written, then
 * drawn again.
 */
export async function createLogger(level: LogLevel, progress?: TerminalProgress | null): Promise<Logger> {
  if (logsForAPerson()) {
    const { default: pretty } = await import('pino-pretty');
    const destination = progress ? besideProgress(progress) : 2;
    return pino({ level, formatters }, pretty({ destination, sync: true, colorize: true, singleLine: true }));
  }
  return pino({ level, formatters }, pino.destination({ dest: 2, sync: true }));
}

/**
 * The level of the line a pass logs for each item it deletes. Logs that are kept (a file, journald)
 * have every deletion at info; a person at a terminal gets one line at info for them all (the
 * audit log in the report folder holds each), and each at debug.
 */
export function itemLogLevel(): 'info' | 'debug' {
  return logsForAPerson() ? 'debug' : 'info';
}

function logsForAPerson(): boolean {
  return Boolean(process.stderr.isTTY);
}

function besideProgress(progress: TerminalProgress): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      progress.around(() => writeToDescriptorSync(2, chunk));
      done();
    },
  });
}
