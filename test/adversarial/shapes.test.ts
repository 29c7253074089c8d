import { existsSync, linkSync, lstatSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { daysAgo, put } from '../helpers/fs-fixtures.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { ageExcept, deadSocket, deepChain, mkfifo, mknod, readDeepLeaf } from './support/shapes.js';
import { runArgs, world } from './support/watchfire-world.js';

/**
 * Issue 6, case 4 (shapes): a folder 10,000 levels deep (`AJ_DEEP_LEVELS`), FIFOs, sockets and
 * device nodes, hard links to files outside a target (the 200,000-entry folder is in wide.slow.test.ts). The walk and the delete are
 * iterative and relative (no stack to overflow, no PATH_MAX), never open what they remove, and
 * unlink a link, never its target.
 */

const DEPTH = Number(process.env.AJ_DEEP_LEVELS ?? 10_000);
const isRoot = process.geteuid?.() === 0;

describe('tree shapes', () => {
  it(`deletes a dead home ${DEPTH} levels deep and keeps a deep tree outside it, byte for byte`, async () => {
    const w = world();
    const dead = w.session('deep-gone:chat', { 'AGENTS.md': '# prompt\n' });
    const old = daysAgo(3);
    deepChain(path.join(dead, 'nest'), DEPTH, 'the bottom of a dead tree\n', old);
    const keep = path.join(w.outside, 'deep-keep');
    deepChain(keep, DEPTH, 'the bottom of a tree to keep\n', old);
    symlinkSync(keep, path.join(dead, 'link-to-deep-outside'));
    ageExcept(w.dir, old, [path.join(dead, 'nest', 'd'), path.join(keep, 'd')]);
    const before = shallowInventory(w.dir, [path.join(dead, 'nest', 'd'), path.join(keep, 'd')], w.runDir);

    const run = await runCli(runArgs(w), { env: w.env, timeoutMs: 120_000 });

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
    expect(existsSync(dead)).toBe(false);
    expect(readDeepLeaf(keep, DEPTH)).toBe('the bottom of a tree to keep\n');
    const after = shallowInventory(w.dir, [path.join(keep, 'd')], w.runDir);
    expectOnlyTargetsTouched(before, after, { targets: [w.key(dead)] });
  });

  it.runIf(isRoot)(
    'unlinks FIFOs, sockets, device nodes and hard links inside a dead home without opening them; what they stand for survives',
    async () => {
      const w = world();
      const dead = w.session('odd-entries:chat', { 'AGENTS.md': '# prompt\n' });
      mkfifo(path.join(dead, 'pipe'));
      mkfifo(path.join(w.outside, 'outside-pipe'));
      await deadSocket(path.join(dead, 'agent.sock'));
      mknod(path.join(dead, 'null-alike'), 'c', 1, 3);
      mknod(path.join(dead, 'disk-alike'), 'b', 7, 250);
      const secret = path.join(w.outside, 'secret.txt');
      linkSync(secret, path.join(dead, 'hard-link-to-secret'));
      put(path.join(w.outside, 'deep', 'nested', 'linked.bin'), Buffer.alloc(4096, 9));
      put(path.join(dead, 'sub', 'placeholder'), '');
      linkSync(path.join(w.outside, 'deep', 'nested', 'linked.bin'), path.join(dead, 'sub', 'hard-link-2'));
      w.age();
      expect(lstatSync(secret).nlink).toBe(2);
      const before = w.snapshot();

      const run = await runCli(runArgs(w), { env: w.env });

      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as Report;
      expect(itemAt(report, dead)).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
      expect(existsSync(dead)).toBe(false);
      expectOnlyTargetsTouched(before, w.snapshot(), { targets: [w.key(dead)] });
      expect(readFileSync(secret, 'utf8')).toBe('must survive\n');
      expect(lstatSync(secret).nlink).toBe(1);
      expect(lstatSync(path.join(w.outside, 'outside-pipe')).isFIFO()).toBe(true);
      expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
    },
  );
});

/**
 * An inventory of `root` that leaves out the report folder and the given folders: a chain deeper
 * than PATH_MAX cannot be listed by full path (it is checked by the relative walk instead), and a
 * folder of 200,000 links is checked through the file they point at.
 */
function shallowInventory(root: string, leaveOut: string[], runDir: string) {
  return inventory(root, { exclude: [...leaveOut, runDir] });
}
