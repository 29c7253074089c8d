/** A folder's entries, their names decoded as bytes where Node could not decode one of them. */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import type { Dirent } from 'node:fs';
import { ignoreMissingAsync } from './ignore-missing.js';
import { decodeBytes, mayHaveLostBytes } from './names.js';
import { named, namedAsync } from './paths.js';

export type { Dirent };

export function readdirNamesSync(p: string): string[] {
  const names = named(p, (at) => fs.readdirSync(at));
  for (const name of names)
    if (mayHaveLostBytes(name)) return named(p, (at) => fs.readdirSync(at, { encoding: 'buffer' })).map(decodeBytes);
  return names;
}

export function readdirSync(p: string): Dirent[] {
  const entries = named(p, (at) => fs.readdirSync(at, { withFileTypes: true }));
  for (const entry of entries)
    if (mayHaveLostBytes(entry.name))
      return decodedEntries(named(p, (at) => fs.readdirSync(at, { withFileTypes: true, encoding: 'buffer' })));
  return entries;
}

async function readdir(p: string): Promise<Dirent[]> {
  const entries = await namedAsync(p, (at) => fsp.readdir(at, { withFileTypes: true }));
  for (const entry of entries)
    if (mayHaveLostBytes(entry.name))
      return decodedEntries(await namedAsync(p, (at) => fsp.readdir(at, { withFileTypes: true, encoding: 'buffer' })));
  return entries;
}

/** Reads a directory's entries, or an empty list where the directory does not exist. */
export const readdirOrEmpty = (p: string): Promise<Dirent[]> => ignoreMissingAsync(() => readdir(p), []);

function decodedEntries(entries: Array<Dirent<Buffer>>): Dirent[] {
  return entries.map((entry) => {
    const decoded = entry as unknown as Dirent;
    decoded.name = decodeBytes(entry.name);
    return decoded;
  });
}
