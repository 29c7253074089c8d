import {
  existsSync,
  type lstatSync,
  lutimesSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lstatOrNullSync, lstatSync as lstatSyncOf } from '../../../src/safety/fs/stat.js';
import { readdirNamesSync } from '../../../src/safety/fs/list.js';
import { encodeText } from '../../../src/safety/fs/names.js';
import {
  findQuarantines,
  moveToQuarantine,
  NAME_MAX,
  quarantinedName,
  quarantineName,
} from '../../../src/safety/removal/quarantine.js';
import { removeTree } from '../../../src/safety/removal/remove.js';
import { measureTree } from '../../../src/safety/walk/walk.js';
import { type BytePath, bytesPath, latin1, mkdirBytes, putBytes, spelled, symlinkBytes } from '../../helpers/bytes.js';
import { backdate, daysAgo } from '../../helpers/fs-fixtures.js';
import { hookFs, restoreFs } from '../../helpers/fs-hook.js';
import { tempDir } from '../../helpers/temp.js';

/** A tree with names that are not UTF-8 at several depths: files, folders, links, and a folder of them. */
function byteTree(root: BytePath): { entries: number; bytes: number } {
  putBytes(bytesPath(root, latin1('caf\xe9.txt')), '12345');
  putBytes(bytesPath(root, latin1('d\xe9j\xe0'), latin1('\xff\xfe'), 'plain.txt'), '123');
  putBytes(bytesPath(root, latin1('d\xe9j\xe0'), latin1('\xff\xfe'), latin1('na\xefve')), '1');
  mkdirBytes(bytesPath(root, 'plain', latin1('empty-\x80')));
  symlinkBytes(latin1('/nowhere/\xe9'), bytesPath(root, 'plain', latin1('link-\xe9')));
  // What Node's own decoding makes of them: names it cannot give back to the kernel.
  expect(readdirSync(root, 'utf8').filter((name) => name.includes('\ufffd'))).toHaveLength(2);
  return { entries: 8, bytes: 5 + 3 + 1 + latin1('/nowhere/\xe9').length };
}

describe('names that are not UTF-8', () => {
  it('are listed, measured and aged by the walk: a fresh file in a Latin-1 folder is the newest write', () => {
    const tree = path.join(tempDir(), 'tree');
    const expected = byteTree(bytesPath(tree));
    const fresh = putBytes(bytesPath(tree, latin1('d\xe9j\xe0'), latin1('\xff\xfe'), latin1('new-\xe9')), 'now');
    backdate(tree, daysAgo(30));
    const when = daysAgo(0.01);
    lutimesSync(fresh, when, when);
    const facts = measureTree(tree);
    expect(facts.error).toBeUndefined();
    expect(facts.vanished).toBeUndefined();
    expect(facts.entries).toBe(expected.entries + 1);
    expect(facts.bytes).toBe(expected.bytes + 3);
    expect(Math.round(facts.newestWriteMs)).toBe(when.getTime());
  });

  it('measures a tree whose own name is not UTF-8', () => {
    const tree = bytesPath(tempDir(), latin1('r\xf4le'));
    const expected = byteTree(tree);
    const facts = measureTree(spelled(tree));
    expect(facts.error).toBeUndefined();
    expect(facts.entries).toBe(expected.entries);
    expect(facts.bytes).toBe(expected.bytes);
  });

  it('are removed at every depth, links unlinked, by a remover that leaves nothing behind', () => {
    const base = tempDir();
    const outside = bytesPath(base, 'outside');
    putBytes(bytesPath(base, 'outside', latin1('keep-\xe9')), 'must survive');
    const tree = bytesPath(base, latin1('tr\xe9e'));
    const expected = byteTree(tree);
    symlinkBytes(outside, bytesPath(base, latin1('tr\xe9e'), latin1('to-outside-\xff')));
    const result = removeTree(spelled(tree));
    expect(existsSync(tree)).toBe(false);
    expect(result.removed).toBe(expected.entries + 2);
    expect(readdirSync(outside, 'buffer')).toEqual([latin1('keep-\xe9')]);
  });

  it('are found in a quarantine name, and a half-deleted quarantine holding them is finished', async () => {
    const base = tempDir();
    const item = bytesPath(base, latin1('s\xe9ance'));
    byteTree(item);
    const quarantine = moveToQuarantine(spelled(item));
    expect(path.dirname(quarantine)).toBe(base);
    expect(quarantinedName(path.basename(quarantine))).toBe(spelled(latin1('s\xe9ance')));
    // Half deleted: one of its Latin-1 folders already emptied and gone.
    rmSync(bytesPath(base, encodeText(path.basename(quarantine)), latin1('d\xe9j\xe0')), { recursive: true });
    expect(await findQuarantines(base)).toEqual([quarantine]);
    removeTree(quarantine);
    expect(readdirSync(base)).toEqual([]);
  });
});

describe('an entry that vanishes between its listing and its lstat', () => {
  /** Deletes `victim` (really) right before the walk's lstat of it; `recreate` puts it back after. */
  function vanishAtLstat(victim: string, times: number, recreate: boolean): { hits: number } {
    const seen = { hits: 0 };
    hookFs<typeof lstatSync>('lstatSync', (real, p, ...rest) => {
      if (p === victim && seen.hits < times) {
        seen.hits += 1;
        unlinkSync(victim);
        try {
          return real(p, ...rest);
        } finally {
          if (recreate) writeFileSync(victim, 'back again');
        }
      }
      return real(p, ...rest);
    });
    return seen;
  }

  it('is re-walked, and a re-walk in which nothing vanishes is the answer', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'a.txt'), '1');
    putBytes(bytesPath(tree, 'going.txt'), '22');
    const hook = vanishAtLstat('going.txt', 1, false);
    const facts = measureTree(tree);
    expect(hook.hits).toBe(1);
    expect(facts.vanished).toBeUndefined();
    expect(facts.entries).toBe(1);
    expect(facts.bytes).toBe(1);
  });

  it('is named in the facts when it vanishes again on the re-walk', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'sub', 'churn.txt'), '1');
    const hook = vanishAtLstat('churn.txt', 2, true);
    const facts = measureTree(tree);
    expect(hook.hits).toBe(2);
    expect(facts.vanished).toBe(path.join(tree, 'sub', 'churn.txt'));
    expect(facts.error).toBeUndefined();
  });

  it('counts as vanished a folder listed and gone before the walk steps into it, on both walks', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'sub', 'f'), '1');
    const away = path.join(tree, 'sub-away');
    let hits = 0;
    hookFs<typeof lstatSync>('lstatSync', (real, p, ...rest) => {
      // Each walk begins with the root: the folder is back in place for its listing...
      if (p === tree && existsSync(away)) renameSync(away, path.join(tree, 'sub'));
      const stats = real(p, ...rest);
      // ...and moves away right after the listing's lstat of it, before the walk steps in.
      if (p === 'sub') {
        hits += 1;
        renameSync(path.join(tree, 'sub'), away);
      }
      return stats;
    });
    const facts = measureTree(tree);
    restoreFs();
    expect(hits).toBe(2);
    expect(facts.vanished).toBe(path.join(tree, 'sub'));
    expect(facts.error).toBeUndefined();
  });
});

describe('the remover, on an entry missing right after a listing', () => {
  it('treats one that a fresh listing no longer names as gone, and counts it nowhere', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'a.txt'));
    putBytes(bytesPath(tree, 'gone.txt'));
    hookFs<typeof import('node:fs').unlinkSync>('unlinkSync', (real, p) => {
      if (p === 'gone.txt') rmSync(path.join(tree, 'gone.txt'));
      return real(p);
    });
    expect(removeTree(tree)).toEqual({ removed: 2 });
    expect(existsSync(tree)).toBe(false);
  });

  it('fails, removing nothing it cannot see, when a name is still listed but cannot be reached', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'stuck.txt'));
    const enoent = (p: unknown) =>
      Object.assign(new Error(`ENOENT: no such file or directory, '${p}'`), { code: 'ENOENT' });
    hookFs<typeof import('node:fs').unlinkSync>('unlinkSync', (real, p) => {
      if (p === 'stuck.txt') throw enoent(p);
      return real(p);
    });
    hookFs<typeof lstatSync>('lstatSync', (real, p, ...rest) => {
      if (p === 'stuck.txt') throw enoent(p);
      return real(p, ...rest);
    });
    expect(() => removeTree(tree)).toThrow(/stuck\.txt is listed but cannot be reached/);
    restoreFs();
    expect(readdirNamesSync(tree)).toEqual(['stuck.txt']);
  });

  it('fails when a folder it emptied is still listed but rmdir finds nothing', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'sub', 'f'));
    hookFs<typeof import('node:fs').rmdirSync>('rmdirSync', (real, p, ...rest) => {
      if (p === 'sub') throw Object.assign(new Error('ENOENT: sub'), { code: 'ENOENT' });
      return real(p, ...rest);
    });
    expect(() => removeTree(tree)).toThrow(/sub is listed but cannot be reached/);
    restoreFs();
    expect(lstatOrNullSync(path.join(tree, 'sub'))?.isDirectory()).toBe(true);
  });
  it('fails when a folder still listed cannot be entered (ENOENT)', () => {
    const tree = path.join(tempDir(), 'tree');
    putBytes(bytesPath(tree, 'sub', 'f'));
    const chdir = process.chdir;
    process.chdir = (directory: string) => {
      if (directory === 'sub') throw Object.assign(new Error('ENOENT: sub'), { code: 'ENOENT' });
      chdir(directory);
    };
    try {
      expect(() => removeTree(tree)).toThrow(/sub is listed but cannot be reached/);
    } finally {
      process.chdir = chdir;
    }
    expect(lstatOrNullSync(path.join(tree, 'sub', 'f'))?.isFile()).toBe(true);
  });
});

describe('quarantine names never fail for length', () => {
  const bytes = (name: string) => Buffer.byteLength(encodeText(name));

  it.each([200, 209, 210, 250, 255])('quarantines and deletes an item whose name is %i bytes', (length) => {
    const base = tempDir();
    const name = 'é'.repeat(Math.floor(length / 2)) + (length % 2 === 1 ? 'x' : '');
    expect(bytes(name)).toBe(length);
    const item = path.join(base, name);
    putBytes(bytesPath(item, 'f.txt'), 'content');
    const quarantine = moveToQuarantine(item);
    const quarantined = path.basename(quarantine);
    expect(bytes(quarantined)).toBeLessThanOrEqual(NAME_MAX);
    expect(quarantinedName(quarantined)).not.toBeNull();
    if (length + 46 > NAME_MAX) expect(quarantinedName(quarantined)).toMatch(/^(é)+x?~[0-9a-f]{16}$/);
    else expect(quarantinedName(quarantined)).toBe(name);
    removeTree(quarantine);
    expect(readdirSync(base)).toEqual([]);
  });

  it('cuts a long name that is not UTF-8 on a byte, and two long names sharing a start get different forms', () => {
    const a = spelled(Buffer.concat([Buffer.alloc(240, 'a'), latin1('\xe9\xff one')]));
    const b = spelled(Buffer.concat([Buffer.alloc(240, 'a'), latin1('\xe9\xff two')]));
    const qa = quarantineName(a);
    const qb = quarantineName(b);
    expect(bytes(qa)).toBeLessThanOrEqual(NAME_MAX);
    expect(quarantinedName(qa)).not.toBe(quarantinedName(qb));
  });

  it('falls back to the shortest form on a file system with shorter names (ENAMETOOLONG)', () => {
    const base = tempDir();
    const item = path.join(base, 'n'.repeat(100));
    putBytes(bytesPath(item, 'f'));
    hookFs<typeof import('node:fs').renameSync>('renameSync', (real, from, to) => {
      if (Buffer.byteLength(path.basename(String(to))) > 80)
        throw Object.assign(new Error('ENAMETOOLONG: name too long'), { code: 'ENAMETOOLONG' });
      return real(from, to);
    });
    const quarantine = moveToQuarantine(item);
    restoreFs();
    expect(quarantinedName(path.basename(quarantine))).toMatch(/^n{16}~[0-9a-f]{16}$/);
    expect(existsSync(item)).toBe(false);
    removeTree(quarantine);
  });

  it('names a path that is not UTF-8 in an error as the tool spells it, not with U+FFFD', () => {
    const missing = spelled(bytesPath(tempDir(), latin1('gone-\xe9')));
    let message = '';
    try {
      lstatSyncOf(missing);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('gone-\udce9');
    expect(message).not.toContain('\ufffd');
  });

  it('recognises the quarantine of a name that holds a newline', () => {
    expect(quarantinedName(quarantineName('new\nline'))).toBe('new\nline');
  });
});
