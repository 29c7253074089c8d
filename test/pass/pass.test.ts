import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quarantineName } from '../../src/safety/removal/quarantine.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { sleeperIn, waitFor } from '../helpers/processes.js';
import { scratchPass, scratchProvider } from '../helpers/scratch-provider.js';
import { tempDir } from '../helpers/temp.js';
import { processesInside, scanProcesses } from '../../src/safety/processes/processes.js';
import type { Provider } from '../../src/provider-api/provider.js';

function world() {
  const base = tempDir();
  const root = path.join(base, 'root');
  const reportDir = path.join(base, 'report');
  const outside = path.join(base, 'outside');
  put(path.join(outside, 'precious.txt'), 'keep me');
  for (const name of ['dead-a', 'dead-b', 'alive', 'stuck']) {
    put(path.join(root, name, 'notes.md'), `${name} notes`);
    put(path.join(root, name, 'deep', 'data.bin'), Buffer.alloc(64, 1));
  }
  symlinkSync(outside, path.join(root, 'dead-a', 'link-out'));
  backdate(root, daysAgo(3));
  const provider = scratchProvider({
    root,
    judgements: {
      alive: { decision: 'kept', reason: 'session-running', detail: 'alive by the record' },
      stuck: { decision: 'unfinished', reason: 'transcript-not-exported', detail: 'a person must decide' },
    },
  });
  return { base, root, reportDir, outside, provider };
}

/** A provider whose record proves one path dead, whatever that path is: the core must still refuse. */
function oneDeadCandidate(root: string, target: string): Provider {
  return {
    name: 'watchfire',
    async gather() {
      return {
        roots: [{ provider: 'watchfire', root, ok: true }],
        candidates: [
          {
            provider: 'watchfire',
            kind: 'session-home',
            path: target,
            root,
            judgement: { decision: 'delete', reason: 'project-deleted', detail: 'dead' },
          },
        ],
      };
    },
  };
}

describe('a reconcile pass', () => {
  it('deletes what the owner proves dead and nothing else, and reports every item once', async () => {
    const w = world();
    const before = inventory(w.base, { exclude: [w.reportDir] });
    const { report, exitCode } = await scratchPass({ provider: w.provider, reportDir: w.reportDir });
    expect(exitCode).toBe(0);
    expect(report.mode).toBe('delete');
    expect(itemAt(report, path.join(w.root, 'dead-a'))).toMatchObject({
      verdict: 'deleted',
      reason: 'project-deleted',
      kind: 'session-home',
    });
    expect(itemAt(report, path.join(w.root, 'dead-b')).verdict).toBe('deleted');
    expect(itemAt(report, path.join(w.root, 'alive')).verdict).toBe('kept');
    expect(itemAt(report, path.join(w.root, 'stuck')).verdict).toBe('unfinished');
    const diff = diffInventories(before, inventory(w.base, { exclude: [w.reportDir] }));
    expect(diff.removed.every((p) => p.startsWith('root/dead-a') || p.startsWith('root/dead-b'))).toBe(true);
    expect(diff.removed.length).toBe(9);
    expect(diff.added).toEqual([]);
    // The root's own mtime changes with the removals; nothing else does.
    expect(diff.changed).toEqual(['root']);
    expect(readFileSync(path.join(w.outside, 'precious.txt'), 'utf8')).toBe('keep me');
    const bytes = 'dead-a notes'.length + 64 + w.outside.length;
    expect(itemAt(report, path.join(w.root, 'dead-a')).bytes).toBe(bytes);
    expect(report.totals).toMatchObject({ deleted: 2, kept: 1, unfinished: 1, refused: 0, failed: 0, wouldDelete: 0 });
    expect(report.totals.reclaimedBytes).toBe(bytes + 'dead-b notes'.length + 64);
  });

  it('changes nothing in report-only mode, and says would-delete', async () => {
    const w = world();
    const before = inventory(w.base, { exclude: [w.reportDir] });
    const { report } = await scratchPass({ provider: w.provider, reportDir: w.reportDir, reportOnly: true });
    expect(report.mode).toBe('report-only');
    expect(itemAt(report, path.join(w.root, 'dead-a')).verdict).toBe('would-delete');
    expect(report.totals).toMatchObject({ deleted: 0, wouldDelete: 2, reclaimedBytes: 0 });
    expect(diffInventories(before, inventory(w.base, { exclude: [w.reportDir] }))).toEqual({
      removed: [],
      changed: [],
      added: [],
    });
  });

  it('is a no-op the second time', async () => {
    const w = world();
    const first = await scratchPass({ provider: w.provider, reportDir: w.reportDir });
    const between = inventory(w.base, { exclude: [w.reportDir] });
    const second = await scratchPass({ provider: w.provider, reportDir: w.reportDir });
    expect(second.report.totals).toEqual({ ...first.report.totals, deleted: 0, reclaimedBytes: 0 });
    expect(diffInventories(between, inventory(w.base, { exclude: [w.reportDir] }))).toEqual({
      removed: [],
      changed: [],
      added: [],
    });
  });

  it('refuses a young item (too-recent) and one with a live process inside (in-use) before the owner is asked', async () => {
    const w = world();
    put(path.join(w.root, 'dead-b', 'fresh.txt'), 'just written');
    const child = sleeperIn(path.join(w.root, 'dead-a', 'deep'));
    await waitFor(() => processesInside(scanProcesses(), path.join(w.root, 'dead-a')).length > 0);
    const { report } = await scratchPass({ provider: w.provider, reportDir: w.reportDir });
    expect(itemAt(report, path.join(w.root, 'dead-a'))).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, path.join(w.root, 'dead-a')).detail).toContain(String(child.pid));
    expect(itemAt(report, path.join(w.root, 'dead-b'))).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(existsSync(path.join(w.root, 'dead-a', 'notes.md'))).toBe(true);
    expect(existsSync(path.join(w.root, 'dead-b', 'notes.md'))).toBe(true);
    expect(report.processCheck.inspected).toBeGreaterThan(0);
  });

  it('refuses a target that is a symlink, and leaves its target alone', async () => {
    const w = world();
    symlinkSync(w.outside, path.join(w.root, 'dead-link'));
    const before = inventory(w.outside);
    const { report } = await scratchPass({ provider: w.provider, reportDir: w.reportDir, minAge: '0s' });
    expect(itemAt(report, path.join(w.root, 'dead-link'))).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(diffInventories(before, inventory(w.outside))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses a target reached through a symlinked folder inside the root', async () => {
    const base = tempDir();
    const real = path.join(base, 'elsewhere');
    put(path.join(real, 'victim', 'file.txt'), 'not ours');
    backdate(real, daysAgo(3));
    const root = path.join(base, 'root');
    mkdirSync(root);
    symlinkSync(real, path.join(root, 'via-link'));
    const provider = oneDeadCandidate(root, path.join(root, 'via-link', 'victim'));
    const { report } = await scratchPass({ provider, reportDir: path.join(base, 'report') });
    expect(report.items[0]).toMatchObject({ verdict: 'refused', reason: 'symlink-in-path' });
    expect(readFileSync(path.join(real, 'victim', 'file.txt'), 'utf8')).toBe('not ours');
  });

  it('refuses a target outside its provider root', async () => {
    const base = tempDir();
    const root = path.join(base, 'root');
    mkdirSync(root);
    put(path.join(base, 'root-sibling', 'file.txt'), 'x');
    backdate(path.join(base, 'root-sibling'), daysAgo(3));
    const provider = oneDeadCandidate(root, path.join(root, '..', 'root-sibling'));
    const { report } = await scratchPass({ provider, reportDir: path.join(base, 'report') });
    expect(report.items[0]).toMatchObject({ verdict: 'refused', reason: 'outside-root' });
    expect(existsSync(path.join(base, 'root-sibling', 'file.txt'))).toBe(true);
  });

  it('finishes a quarantine left by a killed pass first, and reports it as such', async () => {
    const w = world();
    const victim = path.join(w.root, 'dead-a');
    const quarantine = path.join(w.root, quarantineName('dead-a'));
    renameSync(victim, quarantine);
    const dry = await scratchPass({ provider: w.provider, reportDir: w.reportDir, reportOnly: true });
    expect(itemAt(dry.report, quarantine)).toMatchObject({ kind: 'quarantine', verdict: 'would-delete' });
    expect(existsSync(quarantine)).toBe(true);
    const { report } = await scratchPass({ provider: w.provider, reportDir: w.reportDir });
    expect(itemAt(report, quarantine)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(existsSync(quarantine)).toBe(false);
    expect(readdirSync(w.root).sort()).toEqual(['alive', 'stuck']);
  });

  it('marks a provider whose source of truth is unreadable, refuses its items and exits 1', async () => {
    const w = world();
    const provider = scratchProvider({ root: w.root, failWith: 'projects.yaml is not valid YAML' });
    const before = inventory(w.root);
    const { report, exitCode } = await scratchPass({ provider, reportDir: w.reportDir });
    expect(exitCode).toBe(1);
    expect(report.providers).toEqual([
      { provider: 'watchfire', root: w.root, ok: false, error: 'projects.yaml is not valid YAML' },
    ]);
    expect(report.items.every((item) => item.verdict === 'refused')).toBe(true);
    expect(diffInventories(before, inventory(w.root))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('refuses every deletion with liveness-unknown where processes cannot be seen, unless processCheck is off', async () => {
    const w = world();
    const noProc = path.join(w.base, 'no-proc');
    const hidden = await scratchPass({ provider: w.provider, reportDir: w.reportDir, procRoot: noProc });
    expect(itemAt(hidden.report, path.join(w.root, 'dead-a'))).toMatchObject({
      verdict: 'refused',
      reason: 'liveness-unknown',
    });
    expect(hidden.report.processCheck).toMatchObject({ visible: false, blindBecause: 'not-procfs' });
    expect(existsSync(path.join(w.root, 'dead-a'))).toBe(true);
    const off = await scratchPass({
      provider: w.provider,
      reportDir: w.reportDir,
      procRoot: noProc,
      processCheck: 'off',
    });
    expect(itemAt(off.report, path.join(w.root, 'dead-a')).verdict).toBe('deleted');
  });

  it('writes report.json, report.md and one audit line per deletion', async () => {
    const w = world();
    const { report } = await scratchPass({ provider: w.provider, reportDir: w.reportDir });
    const onDisk = JSON.parse(readFileSync(path.join(w.reportDir, 'report.json'), 'utf8'));
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(report)));
    expect(onDisk.schemaVersion).toBe(1);
    expect(onDisk.tool).toEqual({ name: 'agent-janitor', version: '0.1.0' });
    const markdown = readFileSync(path.join(w.reportDir, 'report.md'), 'utf8');
    const order = ['## Unfinished', '## Refused', '## Deleted', '## Kept'].map((heading) => markdown.indexOf(heading));
    expect(order[0]).toBeGreaterThan(0);
    expect(order[1]).toBe(-1); // nothing refused in this world
    expect(order[0]).toBeLessThan(order[2] as number);
    expect(order[2]).toBeLessThan(order[3] as number);
    const audit = readFileSync(path.join(w.reportDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(audit).toHaveLength(2);
    expect(Object.keys(audit[0]).sort()).toEqual(['bytes', 'kind', 'path', 'provider', 'reason', 'time']);
    expect(audit.map((line) => line.path).sort()).toEqual([path.join(w.root, 'dead-a'), path.join(w.root, 'dead-b')]);
    const leftovers = readdirSync(w.reportDir).filter((name) => name.includes('.tmp-'));
    expect(leftovers).toEqual([]);
  });

  it("refuses, before touching anything, an item that holds a folder of root's inside a user's folder (rule 20)", async () => {
    if (process.getuid?.() !== 0) return;
    const base = tempDir();
    chmodSync(base, 0o755);
    const root = path.join(base, 'home-of-4242');
    put(path.join(root, 'dead', 'mine.txt'), 'the user may delete this');
    put(path.join(root, 'dead', 'roots-dir', 'roots-file.txt'), 'only root may delete this');
    backdate(root, daysAgo(3));
    for (const p of [root, path.join(root, 'dead'), path.join(root, 'dead', 'mine.txt')]) chownSync(p, 4242, 4242);
    chmodSync(path.join(root, 'dead', 'roots-dir'), 0o755);
    const provider = scratchProvider({ root });
    const { report, exitCode } = await scratchPass({ provider, reportDir: path.join(base, 'report') });
    const item = report.items.find((i) => i.kind === 'session-home');
    expect(item).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(item?.detail).toContain(`${path.join(root, 'dead', 'roots-dir')} belongs to uid 0`);
    expect(exitCode).toBe(0);
    // Not even renamed: the user's file and root's are where they were.
    expect(readdirSync(root)).toEqual(['dead']);
    expect(readFileSync(path.join(root, 'dead', 'mine.txt'), 'utf8')).toBe('the user may delete this');
    expect(readFileSync(path.join(root, 'dead', 'roots-dir', 'roots-file.txt'), 'utf8')).toBe(
      'only root may delete this',
    );
  });

  it("in a sticky folder of root's, like /tmp, deletes as the entry's owner; one holding root's folder is refused whole", async () => {
    if (process.getuid?.() !== 0) return;
    const base = tempDir();
    chmodSync(base, 0o755);
    const root = path.join(base, 'tmp');
    mkdirSync(root);
    chmodSync(root, 0o1777);
    put(path.join(root, 'users-scratch', 'mine.txt'), 'the user may delete this');
    put(path.join(root, 'users-trap', 'roots-dir', 'roots-file.txt'), 'only root may delete this');
    backdate(root, daysAgo(3));
    for (const p of [
      path.join(root, 'users-scratch'),
      path.join(root, 'users-scratch', 'mine.txt'),
      path.join(root, 'users-trap'),
    ])
      chownSync(p, 4242, 4242);
    const { report } = await scratchPass({ provider: scratchProvider({ root }), reportDir: path.join(base, 'report') });
    expect(itemAt(report, path.join(root, 'users-scratch')).verdict).toBe('deleted');
    // Run as root this would have gone whole; as its owner, half; as one owner it cannot go at all.
    expect(itemAt(report, path.join(root, 'users-trap'))).toMatchObject({
      verdict: 'refused',
      reason: 'foreign-owner',
    });
    expect(readdirSync(root)).toEqual(['users-trap']);
    expect(readFileSync(path.join(root, 'users-trap', 'roots-dir', 'roots-file.txt'), 'utf8')).toBe(
      'only root may delete this',
    );
  });
});
