import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { framesAbove, resolveFrom, type Identity, type Resolution } from '../../../src/safety/identity/resolve.js';
import { containerRoot, processBelow, startContainer } from '../../helpers/container-root.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * Rule 25: another program's path is resolved as that program sees it, through its own root and
 * working directory (`/proc/<pid>/root`, `/proc/<pid>/cwd`), one entry at a time. A real process in
 * a container (mount and PID namespaces of its own, chrooted into a root of its own) whose root
 * holds links that mean one thing there and another here.
 */

const id = (p: string): Identity => {
  const stats = statSync(p);
  return { dev: stats.dev, ino: stats.ino };
};

/** A root with `data/file`, an absolute link to `/data`, a relative one that climbs above the root, and a dangling one. */
function rootWithLinks(): string {
  const root = containerRoot({
    folders: ['data/sub'],
    links: { 'abs-link': '/data', 'climbs-out': '../../../../data', dangling: '/nowhere/at/all' },
  });
  writeFileSync(path.join(root, 'data', 'file'), 'as the process sees it\n');
  return root;
}

/** A `sleep` chrooted into `root`, in a container of its own: its /proc root and working directory. */
async function sleeperIn(root: string): Promise<{ root: string; cwd: string }> {
  const container = startContainer(root, {}, { PATH: '/usr/bin:/bin' }, ['sleep', '600']);
  const pid = await processBelow(container, (argv) => argv[0] === 'sleep');
  return { root: `/proc/${pid}/root`, cwd: `/proc/${pid}/cwd` };
}

const chain = (resolution: Resolution): Identity[] => {
  if (resolution.state === 'unknown') throw new Error(`unknown: ${resolution.why}`);
  return resolution.chain;
};

describe('resolveFrom, as a process in a container sees its paths', () => {
  it("follows an absolute link from the process's own root, not from this machine's", async () => {
    const root = rootWithLinks();
    const sleeper = await sleeperIn(root);

    const reached = resolveFrom(sleeper.root, '/abs-link/file');

    expect(reached.state).toBe('found');
    expect(chain(reached)).toEqual([id(path.join(root, 'data', 'file')), id(path.join(root, 'data')), id(root)]);
    // The same text from this machine's root leads elsewhere.
    expect(resolveFrom('/', '/abs-link/file').state).toBe('missing');
  });

  it('answers unknown for a dangling link, whatever follows it; missing where a process names it, as nothing is there for it', async () => {
    const sleeper = await sleeperIn(rootWithLinks());

    for (const named of ['/dangling', '/dangling/deeper/file', '/data/../dangling']) {
      const reached = resolveFrom(sleeper.root, named);
      expect(reached.state, named).toBe('unknown');
      expect(reached.state === 'unknown' && reached.why).toContain(
        '/dangling is a link to something that is not there',
      );
      expect(resolveFrom(sleeper.root, named, { dangling: 'missing' }).state, named).toBe('missing');
    }
  });

  it('answers missing for a missing tail, with the chain of the deepest folder that exists', async () => {
    const root = rootWithLinks();
    const sleeper = await sleeperIn(root);

    const reached = resolveFrom(sleeper.root, '/abs-link/sub/gone/deeper');

    expect(reached).toEqual({
      state: 'missing',
      chain: [id(path.join(root, 'data', 'sub')), id(path.join(root, 'data')), id(root)],
      rest: 'gone/deeper',
    });
  });

  it("never climbs above the process's root: by `..`, by a link that climbs, from its working directory", async () => {
    const root = rootWithLinks();
    const sleeper = await sleeperIn(root);
    const file = [id(path.join(root, 'data', 'file')), id(path.join(root, 'data')), id(root)];
    const start = framesAbove(sleeper.cwd, sleeper.root);
    if ('why' in start) throw new Error(start.why);

    expect(chain(resolveFrom(sleeper.root, '/../../../data/file'))).toEqual(file);
    expect(chain(resolveFrom(sleeper.root, '/climbs-out/file'))).toEqual(file);
    // Its working directory is its root: a relative `..` stays there too.
    expect(start.map((frame) => frame.id)).toEqual([id(root)]);
    expect(chain(resolveFrom(sleeper.root, '../../data/file', { start }))).toEqual(file);
  });

  it('resolves a plain folder of this machine as a root too', () => {
    const dir = tempDir('aj-resolve-');
    mkdirSync(path.join(dir, 'real', 'inner'), { recursive: true });
    symlinkSync('real', path.join(dir, 'relative-link'));

    const reached = resolveFrom(dir, '/relative-link/inner');

    expect(chain(reached)).toEqual([id(path.join(dir, 'real', 'inner')), id(path.join(dir, 'real')), id(dir)]);
  });
});
