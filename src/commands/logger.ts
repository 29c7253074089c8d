import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** JSON lines on stderr; readable lines when stderr is a terminal. Never stdout, which is the report's. */
export function createLogger(level: LogLevel): Logger {
  if (process.stderr.isTTY) {
    return pino({ level }, pretty({ destination: 2, sync: true, colorize: true }));
  }
  return pino({ level }, pino.destination({ dest: 2, sync: true }));
}
