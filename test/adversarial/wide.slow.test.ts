import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { wideFolder } from './support/shapes.js';
import { runArgs, world } from './support/watchfire-world.js';

/**
 * Issue 6, case 4 (a wide folder): a dead home holding one folder of 200,000 entries
 * (`AJ_WIDE_ENTRIES`), each a link to one file outside, which must survive.
 */

const WIDTH = Number(process.env.AJ_WIDE_ENTRIES ?? 200_000);

describe('a folder with very many entries', () => {
  it(`deletes a dead home holding a folder of ${WIDTH} entries, every one a link to a file outside, which survives`, async () => {
    const w = world();
    const dead = w.session('wide-gone:chat', { 'AGENTS.md': '# prompt\n' });
    const secret = path.join(w.outside, 'secret.txt');
    wideFolder(path.join(dead, 'wide'), WIDTH, secret);
    w.age();
    // The 200,000 links are checked through the one file they point at.
    const before = inventory(w.dir, { exclude: [path.join(dead, 'wide'), w.runDir] });

    const run = await runCli(runArgs(w), { env: w.env, timeoutMs: 240_000 });

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const item = itemAt(report, dead);
    expect(item).toMatchObject({ verdict: 'deleted', reason: 'project-deleted' });
    // Every link is counted as the link itself: the length of its target path.
    expect(item.bytes).toBe(WIDTH * Buffer.byteLength(secret) + Buffer.byteLength('# prompt\n'));
    expect(existsSync(dead)).toBe(false);
    expect(readFileSync(secret, 'utf8')).toBe('must survive\n');
    expectOnlyTargetsTouched(before, inventory(w.dir, { exclude: [w.runDir] }), { targets: [w.key(dead)] });
  }, 240_000);
});
