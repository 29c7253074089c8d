import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexSandbox } from '../../../src/providers/codex/demo.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';

describe('the codex demo sandbox', () => {
  it('lays out a dead staging clone, an only-copy backup and a live marketplace, and a real pass settles them', async () => {
    const root = tempDir('aj-codex-demo-');
    const home = path.join(root, 'home');
    mkdirSync(home);
    await codexSandbox.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
    const work = tempDir('aj-codex-demo-run-');
    const run = (reportOnly: boolean) =>
      pass({
        dir: work,
        config: { homes: [home], minAge: '1h' },
        only: ['codex'],
        reportOnly,
        env: { HOME: home, CODEX_HOME: '' },
      });
    const before = inventory(root);

    const dry = await run(true);

    expect(diffInventories(before, inventory(root))).toEqual({ removed: [], changed: [], added: [] });
    const verdicts = (items: typeof dry.report.items) => items.map((item) => `${item.verdict} ${item.reason}`).sort();
    expect(verdicts(dry.report.items)).toEqual([
      'unfinished only-copy',
      'would-delete backup-superseded',
      'would-delete plugin-clone-dead',
      'would-delete staging-dead',
      'would-delete staging-expired',
    ]);
    const real = await run(false);
    expect(real.exitCode).toBe(0);
    expect(verdicts(real.report.items.filter((item) => item.verdict === 'deleted'))).toHaveLength(4);
    for (const item of real.report.items)
      expect(existsSync(item.path as string), item.path as string).toBe(item.verdict !== 'deleted');
    const live = path.join(home, '.codex', '.tmp', 'marketplaces', 'acme');
    expect(existsSync(path.join(live, '.agents', 'plugins', 'marketplace.json'))).toBe(true);
  });
});
