import path from 'node:path';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import { readdirSync } from '../../safety/fs/list.js';
import { readRegularFileSync } from '../../safety/fs/read.js';

/** A ref that keeps a commit, and the commit it keeps. */
export interface KeepingRef {
  name: string;
  /**
   * The commit it keeps (a tag peeled), or null for a ref that keeps no commit; read from the files,
   * a ref naming a tree or a blob keeps that id instead, which no HEAD and no commit ever equals.
   */
  commit: string | null;
}

/**
 * A repository's branches, remote-tracking branches and tags read from its files, the way git's
 * files backend keeps them: loose refs under `refs/`, then `packed-refs`. A git process costs more to
 * start than the whole read. Anything this reader does not fully understand answers `null`, and git
 * is asked instead: reftable, a loose tag (whether it names a tag object needs the object store), a
 * symbolic ref to nowhere, a link, a name git would refuse, odd text.
 *
 * Each ref's `commit` is the object it names, peeled where `packed-refs` records a peel. A ref that
 * names a tree or a blob is listed with that id: it equals no HEAD and `rev-list` passes over it, so
 * it holds nothing, as git's listing (which says null) has it.
 */
export function readKeepingRefFiles(commonDir: string): KeepingRef[] | null {
  try {
    if (lstatOrNullSync(path.join(commonDir, 'reftable')) !== null) return null;
    // Loose refs first: a `git pack-refs` in between moves a ref into packed-refs before it removes
    // the loose file, so reading in this order never misses one.
    const loose = new Map<string, LooseRef>();
    for (const top of KEEPING_REFS) if (!readLooseRefs(commonDir, top, loose)) return null;
    const packed = readPackedRefs(path.join(commonDir, 'packed-refs'));
    if (packed === null) return null;
    const named = new Map<string, string>(packed);
    const symbolic: Array<[string, string]> = [];
    for (const [name, ref] of loose) {
      if (ref.kind === 'object') named.set(name, ref.id);
      else symbolic.push([name, ref.target]);
    }
    for (const [name, target] of symbolic) {
      const id = loose.get(target)?.kind === 'symbolic' ? undefined : named.get(target);
      if (id === undefined) return null;
      named.set(name, id);
    }
    return [...named].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, commit]) => ({ name, commit }));
  } catch {
    return null;
  }
}

export type LooseRef = { kind: 'object'; id: string } | { kind: 'symbolic'; target: string };

/** The refs that keep a commit for a person: branches, remote-tracking branches and tags. */
export const KEEPING_REFS = ['refs/heads', 'refs/remotes', 'refs/tags'];
const SYMBOLIC = 'ref: ';
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const MAX_LOOSE_BYTES = 4096;
const MAX_PACKED_BYTES = 256 * 1024 * 1024;

/** False where something under `dir` is not a plain loose ref. `commonDir` is any git dir holding loose refs. */
export function readLooseRefs(commonDir: string, dir: string, into: Map<string, LooseRef>): boolean {
  const at = path.join(commonDir, dir);
  const stats = lstatOrNullSync(at);
  if (stats === null) return true;
  if (!stats.isDirectory()) return false;
  for (const entry of readdirSync(at)) {
    // git's own iteration passes over these: a ref being written, and hidden files.
    if (entry.name.endsWith('.lock') || entry.name.startsWith('.')) continue;
    if (!isPlainRefComponent(entry.name)) return false;
    const name = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!readLooseRefs(commonDir, name, into)) return false;
      continue;
    }
    if (!entry.isFile()) return false;
    const bytes = readRegularFileSync(path.join(commonDir, name), MAX_LOOSE_BYTES);
    // Gone since the folder was listed: deleted, or packed (packed-refs is read next).
    if (bytes === null) continue;
    const text = bytes.toString('latin1').replace(/\n$/, '');
    const target = text.startsWith(SYMBOLIC) ? text.slice(SYMBOLIC.length) : null;
    if (OBJECT_ID.test(text)) {
      if (dir === 'refs/tags' || dir.startsWith('refs/tags/')) return false;
      into.set(name, { kind: 'object', id: text });
    } else if (target !== null) {
      // Resolved below against the keeping refs read: a target that is none of them sends this to git.
      into.set(name, { kind: 'symbolic', target });
    } else return false;
  }
  return true;
}

/** The keeping refs of packed-refs and the object each keeps (its peel where one is recorded); null where unsure. */
function readPackedRefs(file: string): Map<string, string> | null {
  const bytes = readRegularFileSync(file, MAX_PACKED_BYTES);
  const refs = new Map<string, string>();
  if (bytes === null) return refs;
  const lines = bytes.toString('latin1').split('\n');
  if (lines.at(-1) === '') lines.pop();
  // Without the `peeled` trait, a packed tag may name a tag object whose commit is not recorded.
  const traits = lines[0]?.startsWith('# pack-refs with:')
    ? lines[0].slice('# pack-refs with:'.length).trim().split(' ')
    : [];
  const peeledTags = traits.includes('peeled') || traits.includes('fully-peeled');
  let last: string | null = null;
  for (const [k, line] of lines.entries()) {
    if (k === 0 && line.startsWith('#')) continue;
    if (line.startsWith('^')) {
      const peel = line.slice(1);
      if (last === null || !OBJECT_ID.test(peel)) return null;
      if (refs.has(last)) refs.set(last, peel);
      last = null;
      continue;
    }
    const space = line.indexOf(' ');
    const id = line.slice(0, space);
    const name = line.slice(space + 1);
    if (space < 0 || !OBJECT_ID.test(id) || !isPlainRefName(name)) return null;
    last = name;
    if (!isKeeping(name)) continue;
    if (!peeledTags && name.startsWith('refs/tags/')) return null;
    refs.set(name, id);
  }
  return refs;
}

// Bytes git refuses in a ref name, and anything outside printable ASCII, which is git's to judge.
const REFUSED = /[^\x21-\x7e]|[~^:?*[\\]|\.\.|@\{/;

function isPlainRefComponent(component: string): boolean {
  return (
    component !== '' &&
    !REFUSED.test(component) &&
    !component.startsWith('.') &&
    !component.endsWith('.') &&
    !component.endsWith('.lock') &&
    component !== '@'
  );
}

function isPlainRefName(name: string): boolean {
  return name.split('/').every(isPlainRefComponent);
}

function isKeeping(name: string): boolean {
  return KEEPING_REFS.some((top) => name.startsWith(`${top}/`));
}
