import pino, { type Logger } from 'pino';
import { escapedLogFields } from '../core/escape.js';
import type { LogLevel } from './log-levels.js';

// A name that is not UTF-8 is logged with its bytes escaped, as the report writes it.
const formatters = { log: escapedLogFields };

/** JSON lines on stderr; readable lines when stderr is a terminal. Never stdout, which is the report's. */
export async function createLogger(level: LogLevel): Promise<Logger> {
  if (process.stderr.isTTY) {
    // pino-pretty and its colour and date libraries are loaded only for a person at a terminal.
    const { default: pretty } = await import('pino-pretty');
    return pino({ level, formatters }, pretty({ destination: 2, sync: true, colorize: true }));
  }
  return pino({ level, formatters }, pino.destination({ dest: 2, sync: true }));
}
