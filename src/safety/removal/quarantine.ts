import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { errorCode } from '../../model/errors.js';
import { readdirOrEmpty } from '../fs/list.js';
import { renameSync } from '../fs/entries.js';
import { byteLength, encodeText } from '../fs/names.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
// `s`: a name may hold a newline, and its quarantine is a quarantine all the same.
const QUARANTINE = new RegExp(`^\\.(.+)\\.cleanup-${UUID}$`, 's');

/** NAME_MAX of Linux file systems, in bytes. */
export const NAME_MAX = 255;
/** `.` before the name, `.cleanup-<uuid>` after it. */
const AROUND_BYTES = 1 + '.cleanup-'.length + 36;
/** Hex digits of the name's sha256 in a short form. */
const HASH_DIGITS = 16;
/** The part of the name a short form keeps where even the longest one was too long (ENAMETOOLONG). */
const SHORTEST_CUT_BYTES = 16;

/**
 * `.<name>.cleanup-<uuid>`: the quarantine name Kilo uses, so each tool recognises the other's. Where
 * that would pass `limit` bytes, the short form `.<cut>~<hash>.cleanup-<uuid>`: the name cut on a
 * character boundary, and the start of the sha256 of its bytes. Both match the quarantine pattern.
 */
export function quarantineName(name: string, limit = NAME_MAX): string {
  const uuid = randomUUID();
  if (AROUND_BYTES + byteLength(name) <= limit) return `.${name}.cleanup-${uuid}`;
  return `.${shortened(name, limit - AROUND_BYTES - 1 - HASH_DIGITS)}.cleanup-${uuid}`;
}

function shortened(name: string, cutBytes: number): string {
  const hash = createHash('sha256').update(encodeText(name)).digest('hex').slice(0, HASH_DIGITS);
  let cut = '';
  let bytes = 0;
  for (const character of name) {
    const size = byteLength(character);
    if (bytes + size > cutBytes) break;
    cut += character;
    bytes += size;
  }
  return `${cut}~${hash}`;
}

/** The original name inside a quarantine name (its cut and hash for a short form), or null when the name is no quarantine. */
export function quarantinedName(name: string): string | null {
  return QUARANTINE.exec(name)?.[1] ?? null;
}

/**
 * Renames a folder to its quarantine name in the same folder (atomic) and answers the new path. A
 * file system whose names are shorter than NAME_MAX (ENAMETOOLONG) gets the shortest form.
 */
export function moveToQuarantine(target: string): string {
  const folder = path.dirname(target);
  const name = path.basename(target);
  const destination = path.join(folder, quarantineName(name));
  try {
    renameSync(target, destination);
    return destination;
  } catch (err) {
    if (errorCode(err) !== 'ENAMETOOLONG') throw err;
  }
  const shortest = path.join(folder, quarantineName(name, AROUND_BYTES + SHORTEST_CUT_BYTES + 1 + HASH_DIGITS));
  renameSync(target, shortest);
  return shortest;
}

/** The quarantines directly inside `dir` (absolute paths), whatever their type. */
export async function findQuarantines(dir: string): Promise<string[]> {
  const entries = await readdirOrEmpty(dir);
  return entries.filter((entry) => quarantinedName(entry.name) !== null).map((entry) => path.join(dir, entry.name));
}
