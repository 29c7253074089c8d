import { execFileSync } from 'node:child_process';
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FindWalk } from '../../../src/safety/walk/find-walk.js';
import { createTreeCache } from '../../../src/safety/walk/tree-cache.js';
import { largestFilePath, measureTree, type EntryIdentity, type TreeFacts } from '../../../src/safety/walk/walk.js';
import { bytesPath, latin1, putBytes, spelled } from '../../helpers/bytes.js';
import { deepChain, put } from '../../helpers/fs-fixtures.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * The walker ahead (src/safety/walk/find-walk.ts) with the real GNU find, sh and xargs of this machine,
 * over real trees, checked against the walk of our own; faults are injected with a `find` of the
 * test's own first on PATH.
 */

const realFind = (): string => execFileSync('sh', ['-c', 'command -v find'], { encoding: 'utf8' }).trim();

/** A `find` on PATH that runs `body` (in which `$REAL_FIND` is the real one). Answers a PATH. */
function fakeFind(dir: string, body: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'find'), `#!/bin/sh\nREAL_FIND='${realFind()}'\n${body}\n`, { mode: 0o755 });
  return `${bin}:${process.env.PATH}`;
}

/** Roots of every shape a home takes: files, folders, links of each kind, a FIFO, odd names, depth. */
function varied(base: string, count: number): string[] {
  const roots: string[] = [];
  for (let k = 0; k < count; k += 1) {
    const root = path.join(base, `root-${k}`);
    put(path.join(root, 'AGENTS.md'), 'x'.repeat(k * 7));
    put(path.join(root, 'config', 'opencode.json'), '{}');
    for (let f = 0; f < k; f += 1) put(path.join(root, `d${f % 3}`, `f${f}.txt`), String(f).repeat(f + 1));
    mkdirSync(path.join(root, 'empty'));
    symlinkSync('/etc/passwd', path.join(root, 'to-file'));
    symlinkSync('..', path.join(root, 'to-parent'));
    symlinkSync('nowhere', path.join(root, 'dangling'));
    if (k % 3 === 0) execFileSync('mkfifo', [path.join(root, 'pipe')]);
    if (k % 4 === 1) writeFileSync(bytesPath(root, latin1('caf\xe9-latin1')), 'latin-1 name');
    if (k % 5 === 2) writeFileSync(path.join(root, 'line\nbreak 0 d 1 2 3 4.5'), 'a name that looks like a record');
    if (k === 3) deepChain(path.join(root, 'deep'), 120, 'bottom', new Date(1_600_000_000_123));
    // Times with nanoseconds, and one before 1970.
    utimesSync(path.join(root, 'AGENTS.md'), 1_700_000_000.125, 1_700_000_000 + k + 0.987654321);
    if (k === 5) utimesSync(path.join(root, 'config', 'opencode.json'), -1000.25, -1000.25);
    roots.push(root);
  }
  return roots;
}

/** Every entry of `root` that is not a folder, by Node's own recursive listing (names as bytes). */
function filesOf(root: string): Array<{ path: string; bytes: number; ino: number }> {
  const files: Array<{ path: string; bytes: number; ino: number }> = [];
  const visit = (dir: Buffer) => {
    for (const name of readdirSync(dir, { encoding: 'buffer' })) {
      const full = Buffer.concat([dir, Buffer.from('/'), name]);
      const stats = lstatSync(full);
      if (stats.isDirectory()) visit(full);
      else files.push({ path: spelled(full), bytes: stats.size, ino: stats.ino });
    }
  };
  visit(Buffer.from(root));
  return files;
}

/** Every entry's identity in `root`, by a walk of our own. */
function identitiesOf(root: string): EntryIdentity[] {
  const seen: EntryIdentity[] = [];
  measureTree(root, (entry) => seen.push({ dev: entry.dev, ino: entry.ino }));
  return seen;
}

const byIno = (a: EntryIdentity, b: EntryIdentity) => a.ino - b.ino;

/** Runs a walker to its end; answers the trees it handed on. */
async function walkAll(
  roots: readonly string[],
  options: { env?: NodeJS.ProcessEnv; visitorFor?: (root: string) => (entry: EntryIdentity) => void } = {},
  meanwhile: (walk: FindWalk) => void = () => {},
): Promise<{ found: Map<string, TreeFacts>; walk: FindWalk | null }> {
  const found = new Map<string, TreeFacts>();
  let walk: FindWalk | null = null;
  const done = new Promise<void>((resolve) => {
    const check = () => {
      if (walk === null || roots.every((root) => !walk?.pending(root))) resolve();
    };
    walk = FindWalk.start(roots, { ...options, onFound: (root, facts) => found.set(root, facts), onProgress: check });
    if (walk) meanwhile(walk);
    check();
  });
  await done;
  (walk as FindWalk | null)?.stop();
  return { found, walk };
}

/** A walker whose find starts 0.4 s late, with what find visited. */
async function walkLate(base: string, roots: readonly string[], meanwhile: (walk: FindWalk) => void) {
  const visited = new Set<string>();
  const { found } = await walkAll(
    roots,
    {
      env: { PATH: fakeFind(base, 'sleep 0.4; exec "$REAL_FIND" "$@"') },
      visitorFor: (root) => {
        visited.add(root);
        return () => {};
      },
    },
    meanwhile,
  );
  return { found, visited };
}

describe('the walker ahead (GNU find beside the pass)', () => {
  it('gives, for each tree, the facts and the entries our own walk gives', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 24);
    const visited = new Map<string, EntryIdentity[]>();
    const { found } = await walkAll(roots, {
      visitorFor: (root) => {
        const list: EntryIdentity[] = [];
        visited.set(root, list);
        return (entry) => list.push({ dev: entry.dev, ino: entry.ino });
      },
    });
    expect([...found.keys()]).toEqual(roots);
    for (const [root, facts] of found) {
      expect(facts).toEqual(measureTree(root));
      expect(visited.get(root)?.sort(byIno)).toEqual(identitiesOf(root).sort(byIno));
    }
    // Nothing is written anywhere but the trees' own test folder.
    expect(readdirSync(base)).toEqual(['trees']);
  });

  it('tells the same largest file and count of files as our own walk, and the largest is found again by its path', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 24);
    // The largest file of one tree has a name that is not UTF-8, deep down; of another, a name that looks like a record.
    putBytes(bytesPath(roots[4] as string, 'd1', 'deeper', latin1('gro\xdf-latin1')), 'y'.repeat(5000));
    put(path.join(roots[7] as string, 'd2', 'line\nbreak 0 f 1 2'), 'z'.repeat(6000));
    const { found } = await walkAll(roots);
    expect([...found.keys()]).toEqual(roots);
    for (const [root, facts] of found) {
      const expected = filesOf(root);
      expect(facts.files).toBe(expected.length);
      const largest = expected.sort((a, b) => b.bytes - a.bytes || a.ino - b.ino)[0];
      expect(largestFilePath(root, facts.largest as NonNullable<TreeFacts['largest']>)).toBe(largest?.path);
    }
    expect(largestFilePath(roots[4] as string, found.get(roots[4] as string)?.largest as never)).toBe(
      spelled(bytesPath(roots[4] as string, 'd1', 'deeper', latin1('gro\xdf-latin1'))),
    );
    // Moved since the walk: it cannot be named any more.
    const moved = found.get(roots[7] as string)?.largest as NonNullable<TreeFacts['largest']>;
    renameSync(path.join(roots[7] as string, 'd2'), path.join(roots[7] as string, 'd9'));
    expect(largestFilePath(roots[7] as string, { ...moved, trail: [...moved.trail, 1] })).toBeNull();
    expect(largestFilePath(roots[7] as string, moved)).toBe(path.join(roots[7] as string, 'd9', 'line\nbreak 0 f 1 2'));
  });

  it('leaves to our own walk a tree with a repository below its top, a path that is not UTF-8 and what is no folder', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 10);
    put(path.join(roots[2] as string, 'vendor', 'lib', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const oddBytes = bytesPath(base, latin1('\xff-root'));
    mkdirSync(oddBytes);
    const odd = spelled(oddBytes);
    const file = put(path.join(base, 'a-file'), 'x');
    const missing = path.join(base, 'missing');
    const { found } = await walkAll([...roots, odd, file, missing], {}, (walk) => {
      for (const other of [odd, file, missing]) expect(walk.pending(other)).toBe(false);
    });
    expect([...found.keys()]).toEqual(roots.filter((root) => root !== roots[2]));
    // Our own walk names the repository below the top.
    expect(measureTree(roots[2] as string).nestedGit.paths).toEqual([
      path.join(roots[2] as string, 'vendor', 'lib', '.git'),
    ]);
  });

  it('hands nothing on that find had not gone past when it wrote a message', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 12);
    // The message comes after every record: only the batch's end is behind it.
    const PATH = fakeFind(base, '"$REAL_FIND" "$@"; s=$?; echo "find: something went wrong" >&2; exit $s');
    const { found } = await walkAll(roots, { env: { PATH } });
    expect(found.has(roots.at(-1) as string)).toBe(false);
    expect(found.size).toBe(roots.length - 1);
    for (const [root, facts] of found) expect(facts).toEqual(measureTree(root));
  });

  it('counts no entry to a root whose own line is not the folder its lstat showed, nor to any after it', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 10);
    // The second root's own line says another inode, as if find had skipped a root.
    const PATH = fakeFind(base, `"$REAL_FIND" "$@" | awk '/^g?0 /{n++; if (n == 2) $4 = $4 + 1} {print}'`);
    const { found } = await walkAll(roots, { env: { PATH } });
    expect([...found.keys()]).toEqual([roots[0]]);
    expect(found.get(roots[0] as string)).toEqual(measureTree(roots[0] as string));
  });

  it('refuses a root replaced by another folder between its lstat and the walk', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 10);
    const PATH = fakeFind(base, 'sleep 0.5; exec "$REAL_FIND" "$@"');
    const swapped = roots[0] as string;
    const { found } = await walkAll(roots, { env: { PATH } }, () => {
      renameSync(swapped, `${swapped}.old`);
      put(path.join(swapped, 'fresh'), 'a new folder at the old path');
    });
    expect(found.size).toBe(0);
    expect(measureTree(swapped).entries).toBe(1);
  });

  it('hands nothing on, and ends, when find is missing, dies, or xargs or sh is missing', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 9);
    const which = (tool: string) => execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    const noFind = path.join(base, 'no-find');
    mkdirSync(noFind);
    for (const tool of ['sh', 'xargs']) symlinkSync(which(tool), path.join(noFind, tool));
    const noXargs = path.join(base, 'no-xargs');
    mkdirSync(noXargs);
    symlinkSync(which('sh'), path.join(noXargs, 'sh'));
    const killed = fakeFind(base, '"$REAL_FIND" "$1" -maxdepth 0 -printf "0 d 1 1 1 1.0\\n"; kill -9 $$');
    const empty = path.join(base, 'empty-bin');
    mkdirSync(empty);
    for (const PATH of [noFind, noXargs, killed, empty]) {
      const { found } = await walkAll(roots, { env: { PATH } });
      expect(found.size).toBe(0);
    }
  });

  it('drops a root taken back before find reaches it: never visited, never handed on', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 12);
    const taken = [roots[3] as string, roots[7] as string];
    const { found, visited } = await walkLate(base, roots, (walk) => {
      for (const root of taken) walk.release(root);
      for (const root of taken) expect(walk.pending(root)).toBe(false);
    });
    expect([...found.keys()]).toEqual(roots.filter((root) => !taken.includes(root)));
    for (const root of taken) expect(visited.has(root)).toBe(false);
  });

  it('gives back the last trees it has not reached, for the caller to walk while it waits; find never visits them', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 16);
    const awaited = [roots[0] as string, roots[2] as string];
    const taken: string[] = [];
    const { found, visited } = await walkLate(base, roots, (walk) => {
      // Find has not started: everything after the awaited roots can be taken, last first.
      for (let root = walk.takeLast(awaited); root; root = walk.takeLast(awaited)) taken.push(root);
    });
    expect(taken).toEqual(roots.slice(3).reverse());
    expect([...found.keys()]).toEqual(roots.slice(0, 3));
    for (const root of taken) expect(visited.has(root)).toBe(false);
  });

  it("never signals a walker's process group once its leader has been reaped: the number may be another's by then", async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 9);
    const { walk } = await walkAll(roots);
    const ended = walk as FindWalk;
    // The walker has closed; wait for Node to reap its shell, as the pass goes on doing other work.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled: number[] = [];
    const kill = process.kill;
    process.kill = ((pid: number, signal?: string | number) => {
      signalled.push(pid);
      return kill.call(process, pid, signal);
    }) as typeof process.kill;
    try {
      ended.stop();
      ended.release(roots[0] as string);
    } finally {
      process.kill = kill;
    }
    expect(signalled).toEqual([]);
  });

  it('runs two walkers at most: the trees of a third are walked here', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 30);
    const log = path.join(base, 'starts.log');
    const measure = createTreeCache({
      walkAhead: true,
      aheadMinimum: 8,
      env: { PATH: fakeFind(base, `echo start >> '${log}'; sleep 0.5; exec "$REAL_FIND" "$@"`) },
    });
    const sets = [roots.slice(0, 10), roots.slice(10, 20), roots.slice(20)];
    for (const set of sets) measure.ahead(set);
    const third = sets[2] as string[];
    // Nothing of the third set is on its way: waiting for it ends at once.
    let waited = false;
    await Promise.race([
      measure.whenMeasured(third).then(() => (waited = true)),
      new Promise((r) => setTimeout(r, 100)),
    ]);
    expect(waited).toBe(true);
    await measure.whenMeasured(roots);
    for (const root of roots) expect(measure(root)).toEqual(measureTree(root));
    measure.close();
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
    // Fewer than 64 trees are not worth a walker's start: thirty are walked here.
    const few = createTreeCache({ walkAhead: true, env: { PATH: fakeFind(base, `echo start >> '${log}'; exit 1`) } });
    few.ahead(roots);
    await few.whenMeasured(roots);
    expect(few(roots[0] as string)).toEqual(measureTree(roots[0] as string));
    few.close();
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('through the pass cache: each tree walked once, by find, the same as our own walk; waits end when find dies', async () => {
    const base = tempDir();
    const roots = varied(path.join(base, 'trees'), 30);
    linkSync(path.join(roots[1] as string, 'AGENTS.md'), path.join(roots[2] as string, 'hard-link'));
    const calls = new Map<string, number>();
    const log = path.join(base, 'find.log');
    const measure = createTreeCache({
      walkAhead: true,
      aheadMinimum: 8,
      env: { PATH: fakeFind(path.join(base, 'logging'), `printf '%s\\n' "$@" >> '${log}'; exec "$REAL_FIND" "$@"`) },
      visitorFor: (root) => {
        calls.set(root, (calls.get(root) ?? 0) + 1);
        return () => {};
      },
    });
    measure.ahead(roots);
    await measure.whenMeasured(roots);
    for (const root of roots) expect(measure(root)).toEqual(measureTree(root));
    measure.close();
    for (const root of roots) expect(calls.get(root)).toBe(1);
    const given = readFileSync(log, 'utf8').split('\n');
    for (const root of roots) expect(given).toContain(root);

    const dying = createTreeCache({
      walkAhead: true,
      aheadMinimum: 8,
      env: { PATH: fakeFind(base, 'sleep 0.2; kill -9 $$') },
    });
    dying.ahead(roots);
    await dying.whenMeasured(roots);
    for (const root of roots) expect(dying(root)).toEqual(measureTree(root));
    dying.close();
    // Waiting for the first tree while find is slow to start: this process walks the last ones
    // meanwhile, and still every tree is walked once, the same as our own walk.
    calls.clear();
    const slow = createTreeCache({
      walkAhead: true,
      aheadMinimum: 8,
      env: { PATH: fakeFind(path.join(base, 'slow'), 'sleep 0.4; exec "$REAL_FIND" "$@"') },
      visitorFor: (root) => {
        calls.set(root, (calls.get(root) ?? 0) + 1);
        return () => {};
      },
    });
    slow.ahead(roots);
    await slow.whenMeasured([roots[0] as string]);
    expect(calls.get(roots.at(-1) as string)).toBe(1);
    for (const root of roots) expect(slow(root)).toEqual(measureTree(root));
    slow.close();
    for (const root of roots) expect(calls.get(root)).toBe(1);
    // A cache that does not walk ahead starts nothing.
    const plain = createTreeCache();
    plain.ahead(roots);
    await plain.whenMeasured(roots);
    expect(plain(roots[0] as string)).toEqual(measureTree(roots[0] as string));
  });
});
