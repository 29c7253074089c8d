import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { decodeBytes, escapeBytes } from '../../src/safety/fs/names.js';

/**
 * Paths built as bytes, for names that are not UTF-8: the tests make them with Buffer paths, never
 * through the tool's own codec, and name them in the tool's spelling with `spelled`.
 */
export type BytePath = Buffer;

/** A name from a Latin-1 string: each character one byte (`'caf\xe9'` is not UTF-8). */
export const latin1 = (name: string): Buffer => Buffer.from(name, 'latin1');

/** Joins parts with `/`, each a string (UTF-8) or bytes. */
export function bytesPath(...parts: Array<string | Buffer>): BytePath {
  const pieces: Buffer[] = [];
  parts.forEach((part, k) => {
    if (k > 0) pieces.push(Buffer.from('/'));
    pieces.push(typeof part === 'string' ? Buffer.from(part, 'utf8') : part);
  });
  return Buffer.concat(pieces);
}

/** Writes a file at a byte path, making its folders. */
export function putBytes(file: BytePath, content: string | Buffer = 'x'): BytePath {
  const slash = file.lastIndexOf(0x2f);
  if (slash > 0) mkdirSync(file.subarray(0, slash), { recursive: true });
  writeFileSync(file, content);
  return file;
}

export function mkdirBytes(dir: BytePath): BytePath {
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function symlinkBytes(target: string | BytePath, link: BytePath): BytePath {
  symlinkSync(target, link);
  return link;
}

/** The tool's spelling of a byte path: each byte that is not UTF-8 as its lone surrogate. */
export const spelled = (p: BytePath): string => decodeBytes(p);

/** The report's spelling of a byte path: each byte that is not UTF-8 as `\xNN`. */
export const shown = (p: BytePath): string => escapeBytes(decodeBytes(p));

/**
 * Runs git with arguments that may be byte paths: Node passes a child's arguments as UTF-8 text,
 * so each one goes through the shell as octal escapes that printf turns back into its bytes.
 */
export function gitBytes(cwd: string, ...args: Array<string | Buffer>): string {
  const word = (arg: string | Buffer) => {
    const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8') : arg;
    return `"$(printf '${[...bytes].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('')}')"`;
  };
  return execFileSync('/bin/sh', ['-c', `exec git -c safe.directory='*' ${args.map(word).join(' ')}`], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
