import { createHash } from 'node:crypto';
import { errorMessage } from '../../model/errors.js';
import { readFileBuffer } from '../../safety/fs/read.js';

/**
 * What a worktree's index file says, read without running git: the paths of its gitlinks
 * (submodule entries), and the entries flagged assume-unchanged or skip-worktree, which `git status`
 * never compares with the files on disk. `unknown` with the reason when the file is anything this
 * reader does not fully understand (then git is asked instead).
 */
export type IndexFacts =
  | { known: true; gitlinks: string[]; flagged: FlaggedEntry[] }
  | { known: false; reason: string };

/** An index entry that git takes on trust: its file may differ from the index without status saying so. */
export interface FlaggedEntry {
  /** Relative to the worktree, `/`-separated, as the index holds it. */
  path: string;
  /** The index mode: 0o100644, 0o100755, 0o120000 (a symlink) or 0o160000 (a gitlink). */
  mode: number;
  /** The object id staged for it, hex. */
  oid: string;
  assumeUnchanged: boolean;
  skipWorktree: boolean;
}

const unknown = (reason: string): IndexFacts => ({ known: false, reason });

const GITLINK_TYPE = 0o16; // mode >> 12 of 0160000
const DIRECTORY_TYPE = 0o04; // a sparse index's folder entry hides what is inside it
const FIXED_BEFORE_OID = 40;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000; // in the extended flags

/** Reads `<adminDir>/index`, the index of a linked worktree. */
export async function readIndexFacts(indexFile: string): Promise<IndexFacts> {
  let data: Buffer;
  try {
    data = await readFileBuffer(indexFile);
  } catch (err) {
    return unknown(`cannot read ${indexFile}: ${errorMessage(err)}`);
  }
  return parseIndexFacts(data);
}

/**
 * The trailing checksum proves both that the file was read whole (not torn by a writer) and which
 * hash the repository uses, so the entries' object ids have a known width.
 */
export function parseIndexFacts(data: Buffer): IndexFacts {
  if (data.length < 12 + 20 || data.toString('latin1', 0, 4) !== 'DIRC') return unknown('no index signature');
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return unknown(`index version ${version}`);
  const oidLength = checksumLength(data);
  if (oidLength === null) return unknown('the index checksum does not match (being rewritten, or written without one)');
  const end = data.length - oidLength;
  const count = data.readUInt32BE(8);
  let offset = 12;
  let previousName: Buffer = Buffer.alloc(0);
  const gitlinks: string[] = [];
  const flagged: FlaggedEntry[] = [];
  for (let k = 0; k < count; k += 1) {
    const flagsAt = offset + FIXED_BEFORE_OID + oidLength;
    if (flagsAt + 2 > end) return unknown('an entry runs past the end of the index');
    const entryAt = offset;
    const mode = data.readUInt32BE(offset + 24);
    const type = mode >>> 12;
    const flags = data.readUInt16BE(flagsAt);
    const extended = version >= 3 && (flags & EXTENDED) !== 0;
    if (extended && flagsAt + 4 > end) return unknown('an entry runs past the end of the index');
    const skipWorktree = extended && (data.readUInt16BE(flagsAt + 2) & SKIP_WORKTREE) !== 0;
    const assumeUnchanged = (flags & ASSUME_VALID) !== 0;
    let at = flagsAt + 2 + (extended ? 2 : 0);
    let name: Buffer;
    if (version === 4) {
      const strip = readVarint(data, at, end);
      if (strip === null || strip.value > previousName.length) return unknown('a compressed entry name cannot be read');
      at = strip.next;
      const nul = data.indexOf(0, at);
      if (nul < 0 || nul >= end) return unknown('an entry name is not terminated');
      name = Buffer.concat([previousName.subarray(0, previousName.length - strip.value), data.subarray(at, nul)]);
      offset = nul + 1;
    } else {
      const nul = data.indexOf(0, at);
      if (nul < 0 || nul >= end) return unknown('an entry name is not terminated');
      name = data.subarray(at, nul);
      // Entries are NUL-padded to a multiple of eight bytes.
      const length = nul + 1 - offset;
      offset += Math.ceil(length / 8) * 8;
      if (offset > end) return unknown('an entry runs past the end of the index');
    }
    previousName = name;
    if (type === DIRECTORY_TYPE) return unknown('a sparse index (folder entries)');
    if (type === GITLINK_TYPE) gitlinks.push(name.toString('utf8'));
    if (assumeUnchanged || skipWorktree) {
      const oidAt = entryAt + FIXED_BEFORE_OID;
      const oid = data.toString('hex', oidAt, oidAt + oidLength);
      flagged.push({ path: name.toString('utf8'), mode, oid, assumeUnchanged, skipWorktree });
    }
  }
  return checkExtensions(data, offset, end) ?? { known: true, gitlinks, flagged };
}

function checksumLength(data: Buffer): number | null {
  for (const [algorithm, length] of [
    ['sha1', 20],
    ['sha256', 32],
  ] as const) {
    if (data.length < 12 + length) continue;
    const body = data.subarray(0, data.length - length);
    if (
      createHash(algorithm)
        .update(body)
        .digest()
        .equals(data.subarray(data.length - length))
    )
      return length;
  }
  return null;
}

/** Extensions that move entries out of this file (split index, sparse folders) make it incomplete. */
function checkExtensions(data: Buffer, start: number, end: number): IndexFacts | null {
  let at = start;
  while (at < end) {
    if (at + 8 > end) return unknown('an index extension is cut short');
    const signature = data.toString('latin1', at, at + 4);
    if (signature === 'link') return unknown('a split index (its entries live in a shared index)');
    if (signature === 'sdir') return unknown('a sparse index');
    at += 8 + data.readUInt32BE(at + 4);
  }
  return at === end ? null : unknown('the index extensions do not end where the checksum begins');
}

/** git's offset varint (varint.c): seven bits a byte, each continuation adding one. */
function readVarint(data: Buffer, start: number, end: number): { value: number; next: number } | null {
  let at = start;
  if (at >= end) return null;
  let byte = data[at++] as number;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    if (at >= end || value > 2 ** 40) return null;
    byte = data[at++] as number;
    value = (value + 1) * 128 + (byte & 0x7f);
  }
  return { value, next: at };
}
