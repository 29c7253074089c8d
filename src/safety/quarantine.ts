import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { readdirOrEmpty, renameSync } from './fs.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const QUARANTINE = new RegExp(`^\\.(.+)\\.cleanup-${UUID}$`);

/** `.<name>.cleanup-<uuid>`: the quarantine name Kilo uses, so each tool recognises the other's. */
export function quarantineName(name: string): string {
  return `.${name}.cleanup-${randomUUID()}`;
}

/** The original name inside a quarantine name, or null when the name is no quarantine. */
export function quarantinedName(name: string): string | null {
  return QUARANTINE.exec(name)?.[1] ?? null;
}

/** Renames a folder to its quarantine name in the same folder (atomic) and answers the new path. */
export function moveToQuarantine(target: string): string {
  const destination = path.join(path.dirname(target), quarantineName(path.basename(target)));
  renameSync(target, destination);
  return destination;
}

/** The quarantines directly inside `dir` (absolute paths), whatever their type. */
export async function findQuarantines(dir: string): Promise<string[]> {
  const entries = await readdirOrEmpty(dir);
  return entries.filter((entry) => quarantinedName(entry.name) !== null).map((entry) => path.join(dir, entry.name));
}
