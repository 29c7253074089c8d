import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FindRecords } from '../../../src/safety/walk/find-records.js';
import type { EntryIdentity, TreeFacts } from '../../../src/safety/walk/walk.js';

/**
 * The walker's output as GNU find and the batch script write it (src/safety/walk/find-walk.ts): one
 * `-printf '%d %y %D %i %s %U %m %T@\n'` line per entry, `g` before a `.git` entry's line,
 * `E<status> <roots>` after each batch, `X<status>` at the end. Every entry is uid 1000's, with the
 * modes git and an editor leave (755 folders, 644 files), unless a test says otherwise.
 */
const OWNER = 1000;
const line = (
  depth: number,
  type: string,
  dev: number,
  ino: number,
  size: number,
  time: string,
  git = false,
  owner: { uid?: number; mode?: string } = {},
) =>
  `${git ? 'g' : ''}${depth} ${type} ${dev} ${ino} ${size} ${owner.uid ?? OWNER} ${owner.mode ?? (type === 'd' ? '755' : '644')} ${time}\n`;

const ROOTS = ['/r/a', '/r/b', '/r/c'];
const IDS: EntryIdentity[] = [
  { dev: 7, ino: 100 },
  { dev: 7, ino: 200 },
  { dev: 7, ino: 300 },
];

/** Two roots walked clean: `a` holds a file and a folder with a file, `b` a symlink. */
const CLEAN = [
  line(0, 'd', 7, 100, 4096, '1700000000.5000000000'),
  line(1, 'f', 7, 101, 10, '1700000100.0000000010'),
  line(1, 'd', 7, 102, 4096, '1700000200.0000000000'),
  line(2, 'f', 7, 103, 5, '1700000050.2500000000'),
  line(0, 'd', 7, 200, 4096, '1600000000.0000000000'),
  line(1, 'l', 7, 201, 12, '1600000001.1234567891'),
  'E0 2\n',
  'X0\n',
].join('');

interface Handed {
  root: string;
  facts: TreeFacts;
  ownWalk: boolean;
}

function read(output: string | Buffer, chunks: number[] = []) {
  const handed: Handed[] = [];
  const seen = new Map<string, EntryIdentity[]>();
  const records = new FindRecords(ROOTS, IDS, {
    visitorFor: (root) => {
      const list: EntryIdentity[] = [];
      seen.set(root, list);
      return (entry) => list.push({ dev: entry.dev, ino: entry.ino });
    },
    found: (root, facts, ownWalk) => handed.push({ root, facts, ownWalk }),
  });
  const bytes = Buffer.isBuffer(output) ? output : Buffer.from(output);
  let at = 0;
  for (const size of [...chunks, bytes.length]) {
    const end = Math.min(bytes.length, at + size);
    records.feed(bytes.subarray(at, end));
    at = end;
    if (at >= bytes.length) break;
  }
  return { handed, seen, records };
}

const msOf = (seconds: number, nanoseconds: number) => seconds * 1e3 + nanoseconds / 1e6;

describe("reading find's records", () => {
  it('hands on each tree once find has moved past it, with the facts a walk of our own gives', () => {
    const { handed, seen, records } = read(CLEAN);
    expect(handed.map((each) => each.root)).toEqual(['/r/a', '/r/b']);
    expect(handed[0]?.facts).toEqual({
      bytes: 15,
      files: 2,
      largest: { bytes: 10, dev: 7, ino: 101, trail: [] },
      newestWriteMs: msOf(1700000200, 0),
      newestFileWriteMs: msOf(1700000100, 1),
      entries: 3,
      mountInside: false,
      nestedGit: { count: 0, paths: [] },
      uid: OWNER,
      dev: 7,
      ino: 100,
    });
    expect(handed[1]?.facts.bytes).toBe(12);
    expect(handed[1]?.facts.newestWriteMs).toBe(msOf(1600000001, 123456789));
    expect(seen.get('/r/a')?.map((each) => each.ino)).toEqual([100, 101, 102, 103]);
    expect(records.settled).toBe(2);
    expect(records.ended).toBe(true);
  });

  it('tells the largest file by the folders on its way, and of two as large the one of the lower inode', () => {
    const tree = [
      line(0, 'd', 7, 100, 4096, '1.0'),
      line(1, 'd', 7, 110, 4096, '1.0'),
      line(2, 'f', 7, 111, 50, '1.0'),
      line(2, 'd', 7, 120, 4096, '1.0'),
      line(3, 'f', 7, 121, 90, '1.0'),
      line(1, 'd', 7, 130, 4096, '1.0'),
      line(2, 'f', 7, 131, 80, '1.0'),
      // As large as the largest, but of a higher inode; then one as large of a lower inode, higher up.
      line(2, 'f', 7, 132, 90, '1.0'),
      line(1, 'f', 7, 105, 90, '1.0'),
      line(1, 'l', 7, 106, 3, '1.0'),
      'E0 1\n',
      'X0\n',
    ].join('');
    const { handed } = read(tree);
    expect(handed[0]?.facts.files).toBe(6);
    expect(handed[0]?.facts.largest).toEqual({ bytes: 90, dev: 7, ino: 105, trail: [] });
    const deeper = read(tree.replace(line(1, 'f', 7, 105, 90, '1.0'), ''));
    expect(deeper.handed[0]?.facts.largest).toEqual({ bytes: 90, dev: 7, ino: 121, trail: [110, 120] });
  });

  it('gives the same answer however the output is cut into reads', () => {
    const whole = read(CLEAN);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 30 }), (chunks) => {
        const cut = read(CLEAN, chunks);
        expect(cut.handed).toEqual(whole.handed);
        expect([...cut.seen]).toEqual([...whole.seen]);
      }),
    );
  });

  it('hands on the last tree of a batch only when find exited 0 having walked every root, and nothing after', () => {
    const body = CLEAN.slice(0, CLEAN.indexOf('E0 2'));
    const next = [line(0, 'd', 7, 300, 4096, '5.5'), 'E0 1\n'].join('');
    for (const end of ['E1 2\n', 'E0 3\n']) {
      const { handed, records } = read(`${body}${end}${next}`);
      expect(handed.map((each) => each.root)).toEqual(['/r/a']);
      expect(records.tainted).toBe(true);
    }
    expect(read(`${body}E0 2\n${next}`).handed.map((each) => each.root)).toEqual(['/r/a', '/r/b', '/r/c']);
    // A batch cut off before its end (find killed) hands on only the trees it went past.
    expect(read(body).handed.map((each) => each.root)).toEqual(['/r/a']);
  });

  it('counts nothing to a root whose own line has another device or inode, nor to any root after it', () => {
    const swapped = CLEAN.replace(
      line(0, 'd', 7, 200, 4096, '1600000000.0000000000'),
      line(0, 'd', 7, 999, 4096, '1.0'),
    );
    const { handed, seen } = read(swapped.replace('X0\n', [line(0, 'd', 7, 300, 4096, '5.5'), 'E0 1\n'].join('')));
    expect(handed.map((each) => each.root)).toEqual(['/r/a']);
    expect(seen.has('/r/b')).toBe(false);
    expect(seen.has('/r/c')).toBe(false);
  });

  it('hands on nothing from a malformed line on, in its batch or any later one', () => {
    const second = [line(0, 'd', 7, 300, 4096, '5.5'), line(1, 'f', 7, 301, 3, '6.0'), 'E0 1\n'].join('');
    const broken = CLEAN.replace(line(2, 'f', 7, 103, 5, '1700000050.2500000000'), '2 f 7 103 five 1000 644 1.0\n');
    const { handed, records } = read(broken.replace('X0\n', second));
    expect(handed).toEqual([]);
    expect(records.settled).toBe(3);
    for (const bad of [
      '2 f 7 103 5 1000 644 1.0 extra',
      '2 ff 7 103 5 1000 644 1.0',
      '2 f 7 103 5 1000 644 1',
      '2 f 7 103 5 1000 644 .5',
      '2 f 7 103 5 1000 644 1.x',
      '2 f 7 103 5 1000 648 1.0',
      '2 f 7 103 5 1000 1.0',
      '2 f 7 103 5 644 1.0',
    ]) {
      const lines = CLEAN.replace(line(2, 'f', 7, 103, 5, '1700000050.2500000000'), `${bad}\n`);
      expect(read(lines).handed.map((each) => each.root)).toEqual([]);
    }
  });

  it("hands on no tree find had not gone past when it wrote a message (find's messages share the stream)", () => {
    const message = "find: '/r/a/d1/gone': No such file or directory\n";
    const atB = CLEAN.indexOf(line(0, 'd', 7, 200, 4096, '1600000000.0000000000'));
    // A message about `a` comes before the line of `b`: neither is handed on.
    const aboutA = `${CLEAN.slice(0, atB)}${message}${CLEAN.slice(atB)}`;
    expect(read(aboutA).handed).toEqual([]);
    // A message about `b` comes after the line that handed `a` on.
    const atLink = CLEAN.indexOf(line(1, 'l', 7, 201, 12, '1600000001.1234567891'));
    const aboutB = `${CLEAN.slice(0, atLink)}${message}${CLEAN.slice(atLink)}`;
    expect(read(aboutB).handed.map((each) => each.root)).toEqual(['/r/a']);
    // Whatever follows a message, however it looks, hands nothing on.
    const forged = `${CLEAN.slice(0, atB)}${message}E0 1\n${line(0, 'd', 7, 200, 4096, '1.0')}E0 1\n`;
    expect(read(forged).handed).toEqual([]);
  });

  it("marks a `.git` below the top, not the top's own", () => {
    const own = read(
      CLEAN.replace(
        line(1, 'd', 7, 102, 4096, '1700000200.0000000000'),
        line(1, 'd', 7, 102, 4096, '1700000200.0', true),
      ),
    );
    expect(own.handed.map((each) => each.ownWalk)).toEqual([false, false]);
    const nested = read(
      CLEAN.replace(line(2, 'f', 7, 103, 5, '1700000050.2500000000'), line(2, 'f', 7, 103, 5, '1.0', true)),
    );
    expect(nested.handed.map((each) => each.ownWalk)).toEqual([true, false]);
  });

  it('leaves to a walk of our own a tree holding an entry of another uid, or one its owner cannot read or empty (rule 20)', () => {
    const replaced = (owner: { uid?: number; mode?: string }, at = line(2, 'f', 7, 103, 5, '1700000050.2500000000')) =>
      read(CLEAN.replace(at, line(2, at.split(' ')[1] as string, 7, 103, 5, '1700000050.25', false, owner)));
    const folder = line(1, 'd', 7, 102, 4096, '1700000200.0000000000');
    for (const foreign of [
      replaced({ uid: 999 }),
      replaced({ mode: '0' }),
      replaced({ mode: '200' }),
      read(CLEAN.replace(folder, line(1, 'd', 7, 102, 4096, '1700000200.0', false, { mode: '500' }))),
      read(CLEAN.replace(folder, line(1, 'd', 7, 102, 4096, '1700000200.0', false, { mode: '300' }))),
      read(CLEAN.replace(folder, line(1, 'd', 7, 102, 4096, '1700000200.0', false, { mode: '600' }))),
      read(CLEAN.replace(folder, line(1, 'd', 7, 102, 4096, '1700000200.0', false, { uid: 0 }))),
    ])
      expect(foreign.handed.map((each) => [each.root, each.ownWalk])).toEqual([
        ['/r/a', true],
        ['/r/b', false],
      ]);
    // A tree of root's: root may do anything, whatever the bits say; a link's bits mean nothing.
    const roots = read(
      CLEAN.replaceAll(` ${OWNER} `, ' 0 ').replace(
        folder.replaceAll(` ${OWNER} `, ' 0 '),
        line(1, 'd', 7, 102, 4096, '1.0', false, { uid: 0, mode: '0' }),
      ),
    );
    expect(roots.handed.map((each) => each.ownWalk)).toEqual([false, false]);
    expect(roots.handed[0]?.facts.uid).toBe(0);
    const link = read(
      CLEAN.replace(
        line(1, 'l', 7, 201, 12, '1600000001.1234567891'),
        line(1, 'l', 7, 201, 12, '1.0', false, { mode: '0' }),
      ),
    );
    expect(link.handed.map((each) => each.ownWalk)).toEqual([false, false]);
  });

  it('notes a folder on another device (a mount point) and counts a file that is not a folder as its lstat size', () => {
    const lines = [
      line(0, 'd', 7, 100, 4096, '10.0'),
      line(1, 'd', 9, 1, 4096, '11.0'),
      line(1, 'p', 7, 104, 0, '12.0'),
      line(1, 's', 7, 105, 0, '13.0'),
      'E0 1\n',
    ].join('');
    const { handed } = read(lines);
    expect(handed[0]?.facts).toMatchObject({ mountInside: true, bytes: 0, entries: 3, newestFileWriteMs: 13_000 });
  });

  it("reads `%T@` as Node's mtimeMs: before 1970 the fraction still counts forwards from the whole seconds", () => {
    const times: Array<[string, number]> = [
      ['-315619200.5000000000', -315619200 * 1e3 + 500],
      ['0.0000000010', 0.000001],
      ['1796152435.9739789940', msOf(1796152435, 973978994)],
      ['12.5', 12_500],
    ];
    for (const [text, ms] of times) {
      const { handed } = read([line(0, 'f', 7, 100, 1, text), 'E0 1\n'].join(''));
      expect(handed[0]?.facts.newestWriteMs).toBe(ms);
    }
  });

  it('stops reading at a batch end it cannot read', () => {
    const { records, handed } = read(CLEAN.replace('E0 2\n', 'E0 two\n'));
    expect(records.ended).toBe(true);
    expect(handed.map((each) => each.root)).toEqual(['/r/a']);
  });
});
