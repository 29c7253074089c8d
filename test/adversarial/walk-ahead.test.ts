import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/pass.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { itemAt } from '../helpers/pass.js';
import { scratchPass, scratchProvider } from '../helpers/scratch-provider.js';
import { tempDir } from '../helpers/temp.js';
import { ended, inMountNamespace, quoted, unmountOnHost } from './support/namespaces.js';

/**
 * Rules 3 and 12 when GNU find walks the items beside the pass (src/safety/walk/find-walk.ts): its
 * facts decide an item's age and carry the identities a process is matched by, in the plan and in
 * the last look before the delete. The item a process reaches is the first the pass asks for, the
 * one find always walks (the pass takes over only roots from the end of the list); a `find` of the
 * test's own on PATH records that it was given it, then runs the real one.
 */

/** Enough items for the pass to start a walker (64 at least). */
const ITEMS = 70;

function scene() {
  const dir = tempDir('aj-ahead-');
  const root = path.join(dir, 'root');
  for (let k = 0; k < ITEMS; k += 1) {
    put(path.join(root, `item-${k}`, 'notes.md'), `item ${k}\n`);
    put(path.join(root, `item-${k}`, 'nested', 'deep.txt'), 'deep\n');
  }
  backdate(root, daysAgo(3));
  const view = path.join(dir, 'view');
  mkdirSync(view);
  // The order the scratch provider lists the items in, as the kernel gives it.
  const items = readdirSync(root).map((name) => path.join(root, name));
  const log = path.join(dir, 'find.log');
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const realFind = execFileSync('sh', ['-c', 'command -v find'], { encoding: 'utf8' }).trim();
  writeFileSync(
    path.join(bin, 'find'),
    `#!/bin/sh\nprintf '%s\\n' "$@" >> ${quoted(log)}\nexec ${quoted(realFind)} "$@"\n`,
    {
      mode: 0o755,
    },
  );
  return {
    dir,
    root,
    view,
    items,
    first: items[0] as string,
    reportDir: path.join(dir, 'report'),
    seen: (p: string) => path.join(view, path.relative(dir, p)),
    walkedByFind: (p: string) => existsSync(log) && readFileSync(log, 'utf8').split('\n').includes(p),
    bin,
  };
}

type Scene = ReturnType<typeof scene>;

async function passWithFindLogged(s: Scene, onPlanned?: () => Promise<void>): Promise<PassResult> {
  const saved = process.env.PATH;
  process.env.PATH = `${s.bin}:${saved}`;
  try {
    return await scratchPass({
      provider: scratchProvider({ root: s.root }),
      reportDir: s.reportDir,
      ...(onPlanned ? { onPlanned } : {}),
    });
  } finally {
    process.env.PATH = saved;
  }
}

describe('items walked by GNU find beside the pass', () => {
  afterEach(unmountOnHost);

  it('an item whose file another mount namespace holds open through a mount is in use; the rest go', async () => {
    const s = scene();
    const agent = await inMountNamespace(
      `mount --bind ${quoted(s.dir)} ${quoted(s.view)}; cd /; exec sleep 600 3< ${quoted(s.seen(path.join(s.first, 'nested', 'deep.txt')))}`,
      'sleep',
    );
    const { report } = await passWithFindLogged(s);
    expect(s.walkedByFind(s.first)).toBe(true);
    const item = itemAt(report, s.first);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`process ${agent.pid}`);
    expect(existsSync(path.join(s.first, 'nested', 'deep.txt'))).toBe(true);
    for (const other of s.items.slice(1)) expect(itemAt(report, other).verdict).toBe('deleted');
    await ended(agent);
  });

  it('an item with one fresh write is too recent, whoever walked it', async () => {
    const s = scene();
    // A write to a file that was there: no folder's mtime moves, only the file's own.
    appendFileSync(path.join(s.first, 'nested', 'deep.txt'), 'one more line\n');
    const { report } = await passWithFindLogged(s);
    expect(s.walkedByFind(s.first)).toBe(true);
    expect(itemAt(report, s.first)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(readFileSync(path.join(s.first, 'nested', 'deep.txt'), 'utf8')).toBe('deep\none more line\n');
  });

  it('a process that opens a file of the item through another namespace after the plan keeps it: put back, in use', async () => {
    const s = scene();
    let agent = 0;
    const { report } = await passWithFindLogged(s, async () => {
      const child = await inMountNamespace(
        `mount --bind ${quoted(s.dir)} ${quoted(s.view)}; cd /; exec sleep 600 3< ${quoted(s.seen(path.join(s.first, 'notes.md')))}`,
        'sleep',
      );
      agent = child.pid as number;
    });
    expect(s.walkedByFind(s.first)).toBe(true);
    const item = itemAt(report, s.first);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`process ${agent} got inside after it was judged`);
    expect(item.detail).toContain('put back where it was');
    expect(readFileSync(path.join(s.first, 'notes.md'), 'utf8')).toBe(`${path.basename(s.first).replace('-', ' ')}\n`);
  });
});
