import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { expectOnly } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { holdLock } from '../../helpers/locks.js';
import { sleeperIn } from '../../helpers/processes.js';
import {
  backup,
  codexWorld,
  configureMarketplaces,
  marketplaceCopy,
  runCodex,
  stagingClone,
  verdictOf,
  type CodexWorld,
} from './fixtures.js';

const rel = (w: CodexWorld, folder: string) => path.relative(w.root, folder);
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** Every kind of Codex scratch, three days old, beside what must stay. */
function everything(w: CodexWorld) {
  configureMarketplaces(w, ['acme', 'tools']);
  const live = marketplaceCopy(path.join(w.marketplaces, 'acme'), 'acme');
  const liveTools = marketplaceCopy(path.join(w.marketplaces, 'tools'), 'tools');
  put(path.join(w.codexHome, '.tmp', 'plugins.sync.lock'), '');
  const made = {
    live,
    liveTools,
    dead: stagingClone(w, 'marketplace-linux-Q7xk2P'),
    unlocked: stagingClone(w, 'marketplace-linux-Rt5Wq1', { lock: false }),
    upgrade: marketplaceCopy(path.join(w.staging, 'marketplace-upgrade-aB3dE9'), 'acme'),
    add: marketplaceCopy(path.join(w.staging, 'marketplace-add-cD4eF0'), 'acme'),
    pluginClone: marketplaceCopy(path.join(w.codexHome, '.tmp', 'plugins-clone-Zp4Lq8'), 'openai-curated'),
    superseded: backup(w, 'Hq3vLm', 'acme'),
    onlyCopy: backup(w, 'T9cRw2', 'studio'),
    unconfigured: backup(w, 'Wm2Kp7', 'gone'),
    // Not Codex's clones by any rule: left alone.
    tiny: put(path.join(w.codexHome, '.tmp', 'git-Ab12Cd', 'HEAD'), 'ref: refs/heads/main\n'),
    pluginsBackup: put(path.join(w.codexHome, '.tmp', 'plugins-backup-Xy9Zw8', 'README.md'), '# kept\n'),
    stray: put(path.join(w.staging, 'notes', 'todo.md'), '- nothing\n'),
  };
  // The live copy of `gone` exists, but config.toml no longer names it.
  marketplaceCopy(path.join(w.marketplaces, 'gone'), 'gone');
  backdate(w.codexHome, daysAgo(3));
  return made;
}

describe('codex: marketplace staging clones, plugin clones and backups', () => {
  it('deletes what Codex left dead, keeps the only copy of a marketplace (saying how to restore it), and nothing else changes', async () => {
    const w = codexWorld();
    const m = everything(w);
    const before = inventory(w.root);

    const dry = await runCodex(w, { reportOnly: true });
    expect(inventory(w.root)).toEqual(before);
    const result = await runCodex(w);

    expect(result.exitCode).toBe(0);
    const gone = [m.dead, m.unlocked, m.upgrade, m.add, m.pluginClone, m.superseded];
    for (const folder of gone) expect(verdictOf(dry, folder)).toMatch(/^would-delete /);
    expect(verdictOf(result, m.dead)).toBe('deleted staging-dead');
    expect(verdictOf(result, m.unlocked)).toBe('deleted staging-dead');
    expect(verdictOf(result, m.upgrade)).toBe('deleted staging-expired');
    expect(verdictOf(result, m.add)).toBe('deleted staging-expired');
    expect(verdictOf(result, m.pluginClone)).toBe('deleted plugin-clone-dead');
    expect(verdictOf(result, m.superseded)).toBe('deleted backup-superseded');
    for (const folder of [m.onlyCopy, m.unconfigured]) {
      expect(verdictOf(dry, folder)).toBe('unfinished only-copy');
      expect(verdictOf(result, folder)).toBe('unfinished only-copy');
    }
    const onlyCopy = result.report.items.find((item) => item.path === m.onlyCopy);
    expect(onlyCopy?.detail).toContain('the live copy of marketplace studio is gone');
    expect(onlyCopy?.detail).toContain(
      `mv ${path.join(m.onlyCopy, 'root')} ${path.join(w.marketplaces, 'studio')} && rmdir ${m.onlyCopy}`,
    );
    // Nothing but Codex's scratch is an item: not the live copies, the locks, config.toml or the strays.
    expect(result.report.items.map((item) => item.path).sort()).toEqual([...gone, m.onlyCopy, m.unconfigured].sort());
    expectOnly(before, inventory(w.root), {
      removed: gone.map((folder) => rel(w, folder)),
      changedDirs: [w.staging, w.marketplaces, path.join(w.codexHome, '.tmp')].map((folder) => rel(w, folder)),
    });
    // A second pass changes nothing.
    const after = inventory(w.root);
    await runCodex(w);
    expect(inventory(w.root)).toEqual(after);
  });

  it('refuses a staging folder whose .lock a live process holds, and leaves every byte (the lock is the only guard here)', async () => {
    const w = codexWorld();
    const busy = stagingClone(w, 'marketplace-linux-Bz8Yx3');
    backdate(w.codexHome, daysAgo(3));
    const holder = await holdLock(path.join(busy, '.lock'));
    const before = inventory(w.root);

    // processCheck off: the process inside does not refuse it; only the lock can, in the plan
    // (report-only) and again right before the delete.
    const plan = await runCodex(w, { reportOnly: true, config: { processCheck: 'off' } });
    const result = await runCodex(w, { config: { processCheck: 'off' } });

    expect(verdictOf(plan, busy)).toBe('refused staging-locked');
    expect(verdictOf(result, busy)).toBe('refused staging-locked');
    expect(result.report.items[0]?.detail).toContain(`${path.join(busy, '.lock')} is held`);
    expect(inventory(w.root)).toEqual(before);
    await holder.release();
  });

  it('deletes nothing under .staging, and no backup, while .staging.lock is held', async () => {
    const w = codexWorld();
    configureMarketplaces(w, ['acme']);
    marketplaceCopy(path.join(w.marketplaces, 'acme'), 'acme');
    const dead = stagingClone(w, 'marketplace-linux-Q7xk2P');
    const unlocked = stagingClone(w, 'marketplace-linux-Rt5Wq1', { lock: false });
    const upgrade = marketplaceCopy(path.join(w.staging, 'marketplace-upgrade-aB3dE9'), 'acme');
    const superseded = backup(w, 'Hq3vLm', 'acme');
    backdate(w.codexHome, daysAgo(3));
    await holdLock(path.join(w.marketplaces, '.staging.lock'));
    const before = inventory(w.root);

    const plan = await runCodex(w, { reportOnly: true, config: { processCheck: 'off' } });
    const result = await runCodex(w, { config: { processCheck: 'off' } });

    for (const folder of [dead, unlocked, upgrade, superseded]) {
      expect(verdictOf(plan, folder), folder).toBe('refused staging-locked');
      expect(verdictOf(result, folder), folder).toBe('refused staging-locked');
    }
    expect(inventory(w.root)).toEqual(before);
  });

  it('takes the locks again right before the rename: one taken after the plan stops the delete, and the folder stays whole', async () => {
    const w = codexWorld();
    configureMarketplaces(w, ['acme']);
    marketplaceCopy(path.join(w.marketplaces, 'acme'), 'acme');
    const dead = stagingClone(w, 'marketplace-linux-Q7xk2P');
    const superseded = backup(w, 'Hq3vLm', 'acme');
    const pluginClone = marketplaceCopy(path.join(w.codexHome, '.tmp', 'plugins-clone-Zp4Lq8'), 'openai-curated');
    put(path.join(w.codexHome, '.tmp', 'plugins.sync.lock'), '');
    const upgrading = stagingClone(w, 'marketplace-linux-Nw4Up0');
    backdate(w.codexHome, daysAgo(3));
    const before = inventory(w.root);

    // Once the plan is made, an upgrade starts in a staging folder the plan found dead, and a plugin sync.
    const result = await runCodex(w, {
      config: { processCheck: 'off' },
      onPlanned: async () => {
        await holdLock(path.join(dead, '.lock'));
        await holdLock(path.join(upgrading, '.lock'));
        await holdLock(path.join(w.codexHome, '.tmp', 'plugins.sync.lock'));
      },
    });

    expect(verdictOf(result, dead)).toBe('refused staging-locked');
    expect(verdictOf(result, superseded)).toBe('refused staging-locked');
    expect(verdictOf(result, pluginClone)).toBe('refused staging-locked');
    expect(result.report.items.find((item) => item.path === dead)?.detail).toContain('just before the delete');
    // Every entry of every item is as it was; only the folders holding them saw each rename and its undoing.
    const now = inventory(w.root);
    const holders = [w.staging, w.marketplaces, path.join(w.codexHome, '.tmp')].map((folder) => rel(w, folder));
    for (const [key, entry] of before) if (!holders.includes(key)) expect(now.get(key), key).toEqual(entry);
    expect([...now.keys()].sort()).toEqual([...before.keys()].sort());
  });

  it('looks for a staging folder’s .lock only under .staging.lock: one a Codex made and holds after the plan stops the delete', async () => {
    const w = codexWorld();
    const unlocked = stagingClone(w, 'marketplace-linux-Rt5Wq1', { lock: false });
    backdate(w.codexHome, daysAgo(3));

    const result = await runCodex(w, {
      config: { processCheck: 'off' },
      // What Codex does under .staging.lock: the folder's .lock made, and held for the clone.
      onPlanned: async () => void (await holdLock(put(path.join(unlocked, '.lock'), ''))),
    });

    expect(verdictOf(result, unlocked)).toBe('refused staging-locked');
    expect(result.report.items[0]?.detail).toContain(`${path.join(unlocked, '.lock')} is held`);
    expect(inventory(unlocked).size).toBeGreaterThan(3);
  });

  it("keeps an older Codex's staging folder within Codex's own threshold, and refuses one a process is in", async () => {
    const w = codexWorld();
    const upgrade = marketplaceCopy(path.join(w.staging, 'marketplace-upgrade-aB3dE9'), 'acme');
    const add = marketplaceCopy(path.join(w.staging, 'marketplace-add-cD4eF0'), 'acme');
    const inUse = marketplaceCopy(path.join(w.staging, 'marketplace-upgrade-Gh5iJ6'), 'acme');
    backdate(upgrade, minutesAgo(5));
    backdate(add, minutesAgo(120));
    backdate(inUse, daysAgo(3));
    // An orphaned git clone of a killed Codex still works in it.
    sleeperIn(path.join(inUse, 'plugins'));
    const before = inventory(w.root);

    const result = await runCodex(w, { config: { minAge: '1m' } });

    expect(verdictOf(result, upgrade)).toBe('kept codex-threshold');
    expect(result.report.items.find((item) => item.path === upgrade)?.detail).toContain(
      'Codex itself keeps one for 10m',
    );
    expect(verdictOf(result, add)).toBe('kept codex-threshold');
    expect(result.report.items.find((item) => item.path === add)?.detail).toContain('for 1d');
    expect(verdictOf(result, inUse)).toBe('refused in-use');
    expect(inventory(w.root)).toEqual(before);
  });

  it('refuses a plugin clone while plugins.sync.lock is held, or when it is not there to be held', async () => {
    const w = codexWorld();
    const clone = marketplaceCopy(path.join(w.codexHome, '.tmp', 'plugins-clone-Zp4Lq8'), 'openai-curated');
    const syncLock = put(path.join(w.codexHome, '.tmp', 'plugins.sync.lock'), '');
    backdate(w.codexHome, daysAgo(3));
    const holder = await holdLock(syncLock);
    const before = inventory(w.root);

    const held = await runCodex(w, { config: { processCheck: 'off' } });
    expect(verdictOf(held, clone)).toBe('refused staging-locked');
    await holder.release();
    rmSync(syncLock);
    const missing = await runCodex(w);
    expect(verdictOf(missing, clone)).toBe('refused staging-lock-unusable');
    // Only the lock file this test removed (and so its folder's mtime) differ.
    before.delete(path.relative(w.root, syncLock));
    before.delete(path.relative(w.root, path.dirname(syncLock)));
    const now = inventory(w.root);
    for (const [key, entry] of before) expect(now.get(key), key).toEqual(entry);
    // The tool never makes a lock file of Codex's.
    expect(now.has(path.relative(w.root, syncLock))).toBe(false);
  });

  it('keeps a backup while an upgrade runs, and one whose live copy is not the same marketplace', async () => {
    const w = codexWorld();
    configureMarketplaces(w, ['acme', 'tools']);
    marketplaceCopy(path.join(w.marketplaces, 'acme'), 'acme');
    // The live path of `tools` holds another marketplace's checkout.
    marketplaceCopy(path.join(w.marketplaces, 'tools'), 'acme');
    const whileUpgrading = backup(w, 'Hq3vLm', 'acme');
    const mismatched = backup(w, 'Pq6Rs7', 'tools');
    const upgrading = stagingClone(w, 'marketplace-linux-Nw4Up0');
    backdate(w.codexHome, daysAgo(3));
    const holder = await holdLock(path.join(upgrading, '.lock'));
    const before = inventory(w.root);

    const result = await runCodex(w, { reportOnly: true });

    expect(verdictOf(result, whileUpgrading)).toBe('refused staging-locked');
    expect(verdictOf(result, mismatched)).toBe('refused staging-locked');
    expect(result.report.items.find((item) => item.path === whileUpgrading)?.detail).toContain(
      `${upgrading}/.lock is held`,
    );
    expect(inventory(w.root)).toEqual(before);
    // The upgrade died: its staging folder is dead, and so is the backup of the marketplace whose live copy is whole.
    await holder.release();
    const settled = await runCodex(w, { reportOnly: true });
    expect(verdictOf(settled, upgrading)).toBe('would-delete staging-dead');
    expect(verdictOf(settled, whileUpgrading)).toBe('would-delete backup-superseded');
    expect(verdictOf(settled, mismatched)).toBe('unfinished only-copy');
    expect(settled.report.items.find((item) => item.path === mismatched)?.detail).toContain(
      'its manifest names marketplace acme',
    );
  });

  it('fails closed on a config.toml it cannot read: backups refused, the root not ok; staging still judged by its locks', async () => {
    const w = codexWorld();
    marketplaceCopy(path.join(w.marketplaces, 'acme'), 'acme');
    const superseded = backup(w, 'Hq3vLm', 'acme');
    const dead = stagingClone(w, 'marketplace-linux-Q7xk2P');
    writeFileSync(path.join(w.codexHome, 'config.toml'), '[marketplaces.acme\nsource = ');
    backdate(w.codexHome, daysAgo(3));

    const result = await runCodex(w, { reportOnly: true });

    expect(result.exitCode).toBe(1);
    expect(result.report.providers).toContainEqual(
      expect.objectContaining({ provider: 'codex', root: w.codexHome, ok: false }),
    );
    expect(verdictOf(result, superseded)).toBe('refused source-unreadable');
    expect(verdictOf(result, dead)).toBe('would-delete staging-dead');
  });

  it('skips a home without Codex quietly', async () => {
    const w = codexWorld();
    rmSync(w.codexHome, { recursive: true });
    mkdirSync(w.home, { recursive: true });
    const result = await runCodex(w);
    expect(result.exitCode).toBe(0);
    expect(result.report.items).toEqual([]);
    expect(result.report.providers.filter((root) => root.provider === 'codex')).toEqual([]);
  });
});
