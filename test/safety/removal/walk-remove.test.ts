import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  utimesSync,
  existsSync,
  linkSync,
  lstatSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { measureTree } from '../../../src/safety/walk/walk.js';
import { asOwner } from '../../../src/safety/owners/owner.js';
import { MountInsideError, removeTree } from '../../../src/safety/removal/remove.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { backdate, daysAgo, deepChain, put } from '../../helpers/fs-fixtures.js';
import { tempDir } from '../../helpers/temp.js';

const mounts: string[] = [];
afterEach(() => {
  for (const mount of mounts.splice(0)) execFileSync('umount', ['-l', mount]);
});

function deepTree(root: string, depth: number): string {
  deepChain(root, depth, 'deep\n', new Date());
  return root;
}

function outsideWorld(base: string): string {
  const outside = path.join(base, 'outside');
  put(path.join(outside, 'secret.txt'), 'must survive');
  put(path.join(outside, 'dir', 'nested.txt'), 'must survive too');
  return outside;
}

describe('measureTree', () => {
  it('sums every non-directory entry once, counts a link as the link, and finds the newest write', () => {
    const base = tempDir();
    const outside = outsideWorld(base);
    const tree = path.join(base, 'tree');
    put(path.join(tree, 'a.txt'), '12345');
    put(path.join(tree, 'sub', 'b.bin'), Buffer.alloc(1000));
    symlinkSync(outside, path.join(tree, 'link-to-outside'));
    backdate(tree, daysAgo(3));
    const newest = daysAgo(1);
    put(path.join(tree, 'sub', 'c.txt'), 'x');
    backdate(path.join(tree, 'sub'), daysAgo(3));
    backdate(path.join(tree, 'sub', 'c.txt'), newest);
    const facts = measureTree(tree);
    expect(facts.bytes).toBe(5 + 1000 + 1 + Buffer.byteLength(outside));
    expect(Math.round(facts.newestWriteMs)).toBe(newest.getTime());
    expect(facts.entries).toBe(5);
    expect(facts.error).toBeUndefined();
    expect(facts.mountInside).toBe(false);
  });

  it('counts a folder write (a deleted file) as a write', () => {
    const tree = path.join(tempDir(), 'tree');
    put(path.join(tree, 'sub', 'f'), 'x');
    backdate(tree, daysAgo(10));
    const folderTime = daysAgo(2);
    utimesSync(path.join(tree, 'sub'), folderTime, folderTime);
    expect(Math.round(measureTree(tree).newestWriteMs)).toBe(folderTime.getTime());
  });

  it('walks a tree deeper than PATH_MAX without recursion', () => {
    const tree = deepTree(path.join(tempDir(), 'deep'), 3000);
    const facts = measureTree(tree);
    expect(facts.error).toBeUndefined();
    expect(facts.entries).toBe(3001);
    expect(facts.bytes).toBe(5);
  });

  it('reports an unreadable folder instead of guessing its age', () => {
    const base = tempDir();
    chmodSync(base, 0o755);
    const tree = path.join(base, 'tree');
    put(path.join(tree, 'secret', 'f'), 'x');
    put(path.join(tree, 'open.txt'), 'y');
    chmodSync(tree, 0o755);
    chmodSync(path.join(tree, 'secret'), 0o000);
    // Root reads everything, so walk as an ordinary uid the way a delete as the owner would.
    const facts =
      process.getuid?.() === 0 ? asOwner({ uid: 4242, gid: 4242 }, () => measureTree(tree)) : measureTree(tree);
    expect(facts.error).toMatch(/secret: .*EACCES|permission denied/i);
    expect(facts.bytes).toBe(1);
  });

  it('notices a mount point inside and does not descend into it', () => {
    const tree = path.join(tempDir(), 'tree');
    put(path.join(tree, 'mnt', '.keep'), '');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'none', path.join(tree, 'mnt')]);
    mounts.push(path.join(tree, 'mnt'));
    writeFileSync(path.join(tree, 'mnt', 'on-other-fs'), 'x'.repeat(100));
    const facts = measureTree(tree);
    expect(facts.mountInside).toBe(true);
    expect(facts.bytes).toBe(0);
  });
});

describe('removeTree', () => {
  it('removes links, never what they point at, and a hard-linked file outside survives', () => {
    const base = tempDir();
    const outside = outsideWorld(base);
    const tree = path.join(base, 'tree');
    put(path.join(tree, 'a', 'b', 'c.txt'), 'inside');
    symlinkSync(outside, path.join(tree, 'dir-link'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(tree, 'a', 'file-link'));
    symlinkSync('/nonexistent/dangling', path.join(tree, 'a', 'dangling'));
    linkSync(path.join(outside, 'secret.txt'), path.join(tree, 'hard-link'));
    execFileSync('mkfifo', [path.join(tree, 'a', 'fifo')]);
    const before = inventory(outside);
    const result = removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(result.removed).toBe(9);
    expect(diffInventories(before, inventory(outside))).toEqual({ removed: [], changed: [], added: [] });
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('must survive');
  });

  it('treats a missing tree as done, so a second call is a no-op', () => {
    const tree = path.join(tempDir(), 'gone');
    expect(removeTree(tree)).toEqual({ removed: 0 });
    put(path.join(tree, 'f'));
    removeTree(tree);
    expect(removeTree(tree)).toEqual({ removed: 0 });
  });

  it('removes a tree deeper than PATH_MAX', () => {
    const tree = deepTree(path.join(tempDir(), 'deep'), 3000);
    removeTree(tree);
    expect(existsSync(tree)).toBe(false);
  });

  it('stops at a mount point inside and leaves the mounted filesystem intact', () => {
    const tree = path.join(tempDir(), 'tree');
    put(path.join(tree, 'mnt', '.keep'), '');
    put(path.join(tree, 'zz-first.txt'), 'x');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'none', path.join(tree, 'mnt')]);
    mounts.push(path.join(tree, 'mnt'));
    writeFileSync(path.join(tree, 'mnt', 'precious'), 'on another filesystem');
    expect(() => removeTree(tree)).toThrow(MountInsideError);
    expect(readFileSync(path.join(tree, 'mnt', 'precious'), 'utf8')).toBe('on another filesystem');
    expect(lstatSync(tree).isDirectory()).toBe(true);
  });

  it('returns to the working directory it started in, even after a failure', () => {
    const before = process.cwd();
    const tree = path.join(tempDir(), 'tree');
    put(path.join(tree, 'mnt', '.keep'), '');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'none', path.join(tree, 'mnt')]);
    mounts.push(path.join(tree, 'mnt'));
    expect(() => removeTree(tree)).toThrow();
    expect(process.cwd()).toBe(before);
  });
});
