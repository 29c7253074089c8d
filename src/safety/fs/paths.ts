/**
 * Names are bytes (./names.ts): a path that is plain UTF-8 goes to the kernel as it is, one that
 * holds escaped bytes goes as its exact bytes, and an error names the path as we spell it.
 */
import { encodeText } from './names.js';

export type FsPath = string | Buffer;

/** Runs `call` on the path as the kernel must see it; an error names the path as we spell it. */
export function named<T>(p: string, call: (at: FsPath) => T): T {
  if (p.isWellFormed()) return call(p);
  try {
    return call(encodeText(p));
  } catch (err) {
    throw respelled(err, p);
  }
}

export async function namedAsync<T>(p: string, call: (at: FsPath) => Promise<T>): Promise<T> {
  if (p.isWellFormed()) return call(p);
  try {
    return await call(encodeText(p));
  } catch (err) {
    throw respelled(err, p);
  }
}

/** Node writes a byte path into its message with U+FFFD for each undecodable byte; ours keeps them. */
function respelled(err: unknown, p: string): unknown {
  if (err instanceof Error && 'path' in err && typeof err.path === 'string') {
    err.message = err.message.split(err.path).join(p);
    err.path = p;
  }
  return err;
}

/** The same for a call on two paths (a rename): both are named as we spell them. */
export function respelledPair(err: unknown, from: string, to: string): unknown {
  if (err instanceof Error && 'dest' in err && typeof err.dest === 'string') {
    err.message = err.message.split(err.dest).join(to);
    err.dest = to;
  }
  return respelled(err, from);
}
