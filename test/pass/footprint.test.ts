import { chmodSync, lchownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { Candidate } from '../../src/provider-api/candidate.js';
import type { FootprintPlace } from '../../src/provider-api/footprint.js';
import type { Provider } from '../../src/provider-api/provider.js';
import type { ItemKind, OwnerJudgement, Report } from '../../src/model/types.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { reconcile } from '../../src/reconcile/reconcile.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { classifier, expectedFootprint, filesUnder, reportedFootprint, type Rule } from '../helpers/footprint.js';
import { bytesPath, latin1, putBytes } from '../helpers/bytes.js';
import { tempDir } from '../helpers/temp.js';
import { addUsers, giveTo } from '../helpers/users.js';

/**
 * The footprint's accounting with providers of the test's own: places nested in places, items in
 * places, a place in an item, one place declared twice, a place behind another user's link; each
 * byte counted once, each item walked once.
 */

const KEPT: OwnerJudgement = { decision: 'kept', reason: 'session-running', detail: 'alive by the test' };

interface TestItem {
  path: string;
  kind: ItemKind;
}

function provider(name: string, items: readonly TestItem[], places: () => FootprintPlace[]): Provider {
  return {
    name,
    async gather() {
      const candidates: Candidate[] = items.map((item) => ({
        provider: name,
        kind: item.kind,
        path: item.path,
        root: path.dirname(item.path),
        judgement: KEPT,
      }));
      return { roots: [], candidates };
    },
    async footprint() {
      return places();
    },
  };
}

async function run(providers: Provider[], reportDir: string, footprint = true): Promise<Report> {
  const config = await loadConfig({ providers: PROVIDERS, env: { HOME: reportDir }, overrides: { reportDir } });
  config.footprint.enabled = footprint;
  const result = await reconcile({
    config,
    providers,
    reportOnly: true,
    log: pino({ level: 'silent' }),
    env: {},
  });
  return result.report;
}

/** A tool's folder with a bit of everything; every file a distinct size. */
function toolFolder(base: string) {
  const home = path.join(base, 'home');
  const tool = path.join(home, '.tool');
  const at = (...parts: string[]) => path.join(tool, ...parts);
  put(at('settings.json'), 'a'.repeat(100));
  put(at('logs', 'x.log'), 'b'.repeat(200));
  put(at('logs', 'deep', 't.jsonl'), 'c'.repeat(300));
  put(at('homes', 'one', 'a.txt'), 'd'.repeat(410));
  put(at('homes', 'one', 'sessions', 's.jsonl'), 'e'.repeat(420));
  put(at('homes', 'two', 'b.txt'), 'f'.repeat(430));
  put(at('homes', 'loose.txt'), 'g'.repeat(440));
  put(at('chats', 'c1', 'm.json'), 'h'.repeat(510));
  put(at('chats', 'c1', 'n.json'), 'i'.repeat(520));
  put(at('chats', 'index.json'), 'j'.repeat(530));
  put(at('state.db'), 'k'.repeat(600));
  put(at('state.db-wal'), 'l'.repeat(610));
  put(at('repo', 'objects', 'pack', 'tmp_pack_1'), 'm'.repeat(700));
  put(at('repo', 'HEAD'), 'n'.repeat(710));
  symlinkSync('settings.json', at('link-to-settings'));
  backdate(home, daysAgo(3));
  const items: TestItem[] = [
    { path: at('homes', 'one'), kind: 'session-home' },
    { path: at('homes', 'two'), kind: 'session-home' },
    { path: at('chats', 'c1'), kind: 'task-folder' },
    { path: at('repo', 'objects', 'pack', 'tmp_pack_1'), kind: 'git-garbage' },
    { path: at('state.db-wal'), kind: 'wal-checkpoint' },
  ];
  const basis = { home };
  const places: FootprintPlace[] = [
    { path: tool, category: 'other', basis },
    { path: at('logs'), category: 'logs', basis },
    { path: at('logs', 'deep'), category: 'transcripts', basis },
    { path: at('chats'), category: 'transcripts', basis },
    { path: tool, pattern: '*.db*', category: 'databases', basis },
    { path: at('repo'), category: 'checkpoints', basis },
    // Inside an item: the item has its bytes.
    { path: at('homes', 'one', 'sessions'), category: 'transcripts', basis },
    // Not there: nothing.
    { path: at('missing'), category: 'logs', basis },
  ];
  return { home, tool, at, items, places };
}

describe('the footprint', () => {
  it('counts each byte once: items as scratch, the rest by the deepest place, another kind by its place', async () => {
    const base = tempDir();
    const { tool, at, items, places } = toolFolder(base);
    // A second provider declares one of the first's places again: it is counted for the first.
    const other = provider('kilo', [], () => [
      { path: at('logs'), category: 'other', basis: { home: path.dirname(tool) } },
    ]);
    const report = await run([provider('watchfire', items, () => places), other], path.join(base, 'report'));

    const rules: Rule[] = [
      { pattern: tool, provider: 'watchfire', category: 'other' },
      { pattern: at('logs'), provider: 'watchfire', category: 'logs' },
      { pattern: at('logs', 'deep'), provider: 'watchfire', category: 'transcripts' },
      { pattern: at('chats'), provider: 'watchfire', category: 'transcripts' },
      { pattern: at('*.db*'), provider: 'watchfire', category: 'databases' },
      { pattern: at('repo'), provider: 'watchfire', category: 'checkpoints' },
    ];
    const scratch = items
      .filter((item) => item.kind !== 'task-folder' && item.kind !== 'wal-checkpoint')
      .map((item) => ({ path: item.path, provider: 'watchfire' }));
    const files = filesUnder(tool);
    const expected = expectedFootprint(files, classifier(rules, scratch));
    expect(reportedFootprint(report)).toEqual(expected);
    expect([...expected.keys()].sort()).toEqual(
      ['checkpoints', 'databases', 'logs', 'other', 'scratch', 'transcripts'].map((c) => `watchfire ${c}`),
    );
    // Each byte once: the footprint adds up to the tool's folder, file for file.
    const total = (report.footprint ?? []).reduce((sum, entry) => sum + entry.bytes, 0);
    expect(total).toBe(files.reduce((sum, file) => sum + file.bytes, 0));
    expect((report.footprint ?? []).reduce((sum, entry) => sum + entry.files, 0)).toBe(files.length);
    expect(report.footprint?.find((entry) => entry.category === 'scratch')?.largest).toEqual({
      path: at('repo', 'objects', 'pack', 'tmp_pack_1'),
      bytes: 700,
    });
    // The log a checkpoint would reclaim is still the database's.
    expect(report.footprint?.find((entry) => entry.category === 'databases')?.bytes).toBe(1210);
    // No growth on a first pass.
    for (const entry of report.footprint ?? []) expect(entry.growthBytes).toBeUndefined();
  });

  it('walks no item twice: turning the footprint on enters no folder of an item again', async () => {
    const base = tempDir();
    const { tool, items, places } = toolFolder(base);
    const entered = new Map<string, number>();
    const chdir = process.chdir;
    // Every step down into a folder (a walk's step back up to its parent is not one).
    process.chdir = (to: string) => {
      chdir.call(process, to);
      if (to === '..') return;
      const here = process.cwd();
      entered.set(here, (entered.get(here) ?? 0) + 1);
    };
    const counts = async (footprint: boolean) => {
      entered.clear();
      await run([provider('watchfire', items, () => places)], path.join(base, `report-${footprint}`), footprint);
      return new Map([...entered].filter(([folder]) => folder.startsWith(`${tool}/`)));
    };
    try {
      const without = await counts(false);
      const withIt = await counts(true);
      const inItems = (folder: string) =>
        items.some((item) => folder === item.path || folder.startsWith(`${item.path}/`));
      const itemFolders = [...withIt.keys()].filter(inItems);
      expect(itemFolders.length).toBeGreaterThan(3);
      for (const folder of itemFolders) expect(withIt.get(folder), folder).toBe(without.get(folder));
      // The places' own folders are walked once each.
      for (const [folder, times] of withIt)
        if (!inItems(folder)) expect(times - (without.get(folder) ?? 0), folder).toBe(1);
    } finally {
      process.chdir = chdir;
    }
  });

  it('reads no place through a link another user made or whose target is theirs (rule 20)', async () => {
    const base = tempDir();
    chmodSync(base, 0o755);
    const [stranger] = addUsers(1);
    const home = path.join(base, 'home');
    const theirs = path.join(base, 'theirs');
    put(path.join(theirs, 'secret.log'), 's'.repeat(999));
    giveTo(theirs, stranger as { uid: number; gid: number });
    put(path.join(home, 'mine', 'own.log'), 'o'.repeat(77));
    mkdirSync(path.join(home, '.tool'), { recursive: true });
    symlinkSync(theirs, path.join(home, '.tool', 'to-theirs'));
    symlinkSync(path.join(home, 'mine'), path.join(home, '.tool', 'to-mine'));
    const planted = path.join(home, '.tool', 'planted');
    symlinkSync(path.join(home, 'mine'), planted);
    lchownSync(planted, stranger?.uid as number, stranger?.gid as number);
    const basis = { home };
    const places: FootprintPlace[] = ['to-theirs', 'to-mine', 'planted'].map((name) => ({
      path: path.join(home, '.tool', name),
      category: 'logs',
      basis,
    }));
    writeFileSync(path.join(home, '.tool', 'placeholder'), '');
    const report = await run([provider('watchfire', [], () => places)], path.join(base, 'report'));
    expect(report.footprint).toEqual([
      {
        provider: 'watchfire',
        category: 'logs',
        bytes: 77,
        files: 1,
        largest: { path: path.join(home, 'mine', 'own.log'), bytes: 77 },
      },
    ]);
  });

  it('names a largest file that is not UTF-8 with its bytes escaped; a previous report that cannot be read gives no growth', async () => {
    const base = tempDir();
    const { tool, items, places } = toolFolder(base);
    putBytes(bytesPath(tool, 'logs', latin1('caf\xe9.log')), 'z'.repeat(5000));
    const reportDir = path.join(base, 'report');
    const providers = [provider('watchfire', items, () => places)];
    const first = await run(providers, reportDir);
    expect(first.footprint?.find((entry) => entry.category === 'logs')?.largest).toEqual({
      path: `${tool}/logs/caf\\xe9.log`,
      bytes: 5000,
    });
    writeFileSync(path.join(reportDir, 'report.json'), '{"footprint": [ cut off');
    const afterGarbage = await run(providers, reportDir);
    expect(afterGarbage.footprint?.some((entry) => 'growthBytes' in entry)).toBe(false);
    put(path.join(tool, 'logs', 'more.log'), 'm'.repeat(64));
    const third = await run(providers, reportDir);
    const growth = new Map(third.footprint?.map((entry) => [entry.category, entry.growthBytes]));
    expect(growth).toEqual(
      new Map([
        ['scratch', 0],
        ['transcripts', 0],
        ['logs', 64],
        ['databases', 0],
        ['checkpoints', 0],
        ['other', 0],
      ]),
    );
  });

  it("is left out of the report when the config turns it off, and a provider's failure to list its places is no failure of the pass", async () => {
    const base = tempDir();
    const { items, places } = toolFolder(base);
    const off = await run([provider('watchfire', items, () => places)], path.join(base, 'off'), false);
    expect(off).not.toHaveProperty('footprint');
    const failing = provider('kilo', [], () => {
      throw new Error('cannot list');
    });
    const on = await run([provider('watchfire', items, () => places), failing], path.join(base, 'on'));
    expect(on.footprint?.every((entry) => entry.provider === 'watchfire')).toBe(true);
    expect(on.providers.every((root) => root.ok)).toBe(true);
  });
});
