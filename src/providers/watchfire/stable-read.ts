import { errorCode } from '../../model/errors.js';
import { type FileHandle, openStateFile } from '../../safety/fs/read.js';

/** A write this recent may still be under way: Watchfire truncates and rewrites its YAML in place. */
const SETTLE_MS = 2_000;
const RETRY_MS = 100;
const ATTEMPTS = 30;

/**
 * Reads a small state file that its owner rewrites in place (truncate, then write), so a reader
 * can catch it empty or half written. A read counts only when the file did not change while it
 * was read and either it was last written long enough ago or two reads a moment apart found the
 * same bytes with the same mtime.
 * Answers null when the file does not exist; throws when it never settles.
 */
export async function readSettled(file: string, now: () => number = Date.now): Promise<string | null> {
  let previous: { text: string; mtimeMs: number } | null = null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const read = await readOnce(file);
    if (read === null) return null;
    if (read.unchanged) {
      if (now() - read.mtimeMs >= SETTLE_MS) return read.text;
      // Not rewritten between two reads a moment apart: same bytes and the same mtime.
      if (previous && previous.text === read.text && previous.mtimeMs === read.mtimeMs) return read.text;
      previous = { text: read.text, mtimeMs: read.mtimeMs };
    } else previous = null;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  throw new Error(`${file} kept changing while it was read`);
}

async function readOnce(file: string): Promise<{ text: string; mtimeMs: number; unchanged: boolean } | null> {
  let handle: FileHandle;
  try {
    // Non-blocking, so a FIFO planted in place of the file cannot stall the pass.
    handle = await openStateFile(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    const before = await handle.stat();
    if (!before.isFile()) throw new Error(`${file} is not a regular file`);
    const text = await handle.readFile('utf8');
    const after = await handle.stat();
    const unchanged =
      before.size === after.size && before.mtimeMs === after.mtimeMs && Buffer.byteLength(text) === after.size;
    return { text, mtimeMs: after.mtimeMs, unchanged };
  } finally {
    await handle.close();
  }
}
