import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './log-levels.js';

/** JSON lines on stderr; readable lines when stderr is a terminal. Never stdout, which is the report's. */
export function createLogger(level: LogLevel): Logger {
  if (process.stderr.isTTY) {
    return pino({ level }, pretty({ destination: 2, sync: true, colorize: true }));
  }
  return pino({ level }, pino.destination({ dest: 2, sync: true }));
}
