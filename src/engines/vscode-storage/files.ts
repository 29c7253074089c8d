import { SourceOfTruthError, errorMessage } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { readdirOrEmpty, type Dirent } from '../../safety/fs/list.js';
import { parseJsonc } from './jsonc.js';

/** Larger than any history file an extension writes; a bigger one is not read into memory. */
const MAX_SOURCE_BYTES = 256 * 1024 * 1024;

export type JsonSource = { state: 'absent' } | { state: 'read'; value: unknown; mtimeMs: number };

/**
 * A JSON source of truth: absent (no error), or read and parsed. Anything else (a link, a folder,
 * a permission, a parse error) throws a SourceOfTruthError naming the file: a source that cannot
 * be read proves nothing.
 */
export async function readJsonSource(file: string, options: { jsonc?: boolean } = {}): Promise<JsonSource> {
  const stats = await lstatOrNull(file).catch((err) => {
    throw new SourceOfTruthError(`${file} cannot be looked at: ${errorMessage(err)}`);
  });
  if (!stats) return { state: 'absent' };
  let bytes: Buffer | null;
  try {
    bytes = readRegularFileSync(file, MAX_SOURCE_BYTES);
  } catch (err) {
    throw new SourceOfTruthError(`${file} cannot be read: ${errorMessage(err)}`);
  }
  if (bytes === null) return { state: 'absent' };
  try {
    const text = bytes.toString('utf8');
    const value = options.jsonc ? parseJsonc(text) : JSON.parse(text);
    return { state: 'read', value, mtimeMs: stats.mtimeMs };
  } catch (err) {
    throw new SourceOfTruthError(`${file} is not valid JSON: ${errorMessage(err)}`);
  }
}

/** The folders directly inside `dir` (links to folders excluded: an extension never makes them). */
export async function subfolders(dir: string): Promise<Dirent[]> {
  try {
    return (await readdirOrEmpty(dir)).filter((entry) => entry.isDirectory());
  } catch (err) {
    throw new SourceOfTruthError(`${dir} cannot be listed: ${errorMessage(err)}`);
  }
}

/**
 * The newest write among a history's sources. Each source is looked at just before it is read: a
 * SQLite reader may itself make a WAL database's `-wal` and `-shm` files, and that is no write of
 * the extension's.
 */
export class WriteClock {
  newest: { mtimeMs: number; path: string } | null = null;

  async note(paths: readonly string[]): Promise<void> {
    for (const entry of paths) {
      const stats = await lstatOrNull(entry).catch(() => null);
      if (stats && (this.newest === null || stats.mtimeMs > this.newest.mtimeMs))
        this.newest = { mtimeMs: stats.mtimeMs, path: entry };
    }
  }
}
