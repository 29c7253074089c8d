import { writeToDescriptorSync } from '../safety/fs/write.js';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { escapedLogFields } from '../pass/escape.js';
import type { TerminalProgress } from '../outputs/progress.js';
import type { Totals } from '../model/types.js';
import { formatBytes, formatCount, formatItems } from '../util/format.js';
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
    return pino(
      { level, formatters, hooks: { logMethod: sentencesAtInfo } },
      pretty({ destination, sync: true, colorize: true, singleLine: true }),
    );
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

type Fields = Record<string, unknown>;

const count = (value: unknown): string => (typeof value === 'number' ? formatCount(value) : String(value));

/**
 * The info lines whose fields hold what a person needs, said as a sentence with them. The JSON
 * logs keep the message and the fields as they are (tools read them).
 */
const SENTENCES: Record<string, (fields: Fields) => string> = {
  'last proofs taken': ({ items, entries, ms }) =>
    `last proofs taken: ${count(entries)} entries of ${typeof items === 'number' ? formatItems(items) : String(items)} walked again just before their removal, in ${count(ms)} ms`,
  listening: ({ address, schedule }) =>
    `listening on ${String(address)}; passes run on the schedule ${String(schedule)}`,
  'pass started': ({ trigger }) => `pass started (${trigger === 'start' ? 'the first, at start' : 'on schedule'})`,
  'pass finished': ({ totals }) => {
    const t = (totals ?? {}) as Partial<Totals>;
    return `pass finished: ${formatItems(t.deleted ?? 0)} deleted (${formatBytes(t.reclaimedBytes ?? 0)}), ${count(t.refused ?? 0)} refused, ${count(t.unfinished ?? 0)} unfinished, ${count(t.failed ?? 0)} failed`;
  },
};

const INFO = 30;

/**
 * At a terminal an info line is a sentence for a person, not a dump of JSON: its message, said with
 * its fields where SENTENCES knows how, else alone. Warnings, errors and debug lines keep their
 * fields, which are what a person looks into there.
 */
function sentencesAtInfo(
  this: Logger,
  args: Parameters<Logger['info']>,
  method: (...args: unknown[]) => void,
  level: number,
): void {
  const [fields, message] = args as unknown[];
  if (level !== INFO || typeof fields !== 'object' || fields === null || typeof message !== 'string') {
    method.apply(this, args);
    return;
  }
  const sentence = SENTENCES[message];
  method.apply(this, [sentence ? sentence(fields as Fields) : message]);
}
