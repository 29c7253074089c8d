import { appendFileSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FootprintCategory, ItemKind, ProviderName, Report } from '../../src/model/types.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { classifier, expectedFootprint, filesUnder, reportedFootprint, type Rule } from '../helpers/footprint.js';
import { pass } from '../helpers/pass.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The footprint of every provider's demo sandbox, and of the bench's fleet at a small size, against
 * the apparent sizes of the files in each category's folders, to the byte: the tools' layouts
 * written out here as the test's own rules (SYSTEMS.md), the files listed by the test's own walk.
 */

/** The kinds a pass may delete: their items are scratch wherever they lie. */
const DELETABLE: readonly ItemKind[] = [
  'session-home',
  'checkpoint-repo',
  'worktree',
  'worktree-admin',
  'quarantine',
  'task-output',
  'git-garbage',
  'staging',
  'owner-retention',
  'superseded-log-db',
];
/** Where an item of another kind counts when no place holds it. */
const OTHER_KINDS: Partial<Record<ItemKind, FootprintCategory>> = {
  'task-folder': 'transcripts',
  'wal-checkpoint': 'databases',
};

/** Each tool's places in one home, as SYSTEMS.md lays them out. */
function homeRules(home: string): Rule[] {
  const rules: Rule[] = [];
  const at = (provider: ProviderName, category: FootprintCategory, ...parts: string[]) =>
    rules.push({ pattern: path.join(home, ...parts), provider, category });
  at('watchfire', 'other', '.watchfire');
  at('watchfire', 'logs', '.watchfire', 'logs');
  for (const app of ['kilo', 'opencode']) {
    const data = path.join('.local', 'share', app);
    at('kilo', 'other', data);
    at('kilo', 'checkpoints', data, 'snapshot');
    at('kilo', 'transcripts', data, 'storage');
    at('kilo', 'logs', data, 'log');
    at('kilo', 'databases', data, '*.db*');
    at('kilo', 'tool-output', data, 'tool-output');
    at('kilo', 'worktrees', data, 'worktree');
    at('kilo', 'other', '.local', 'state', app);
  }
  at('owl', 'other', '.local', 'share', 'coding-owl');
  at('owl', 'databases', '.local', 'share', 'coding-owl', 'owl.db*');
  at('owl', 'worktrees', '.local', 'share', 'coding-owl', 'worktrees');
  at('owl', 'other', '.local', 'state', 'coding-owl');
  at('owl', 'logs', '.local', 'state', 'coding-owl', 'logs');
  for (const storage of [path.join('.config', '*', 'User', 'globalStorage', 'saoudrizwan.claude-dev'), '.cline/data']) {
    at('cline', 'other', storage);
    at('cline', 'databases', storage, '*.db*');
    at('cline', 'transcripts', storage, 'tasks');
    at('cline', 'checkpoints', storage, 'checkpoints');
    at('cline', 'transcripts', storage, 'sessions');
    at('cline', 'databases', storage, 'sessions', '*.db*');
    at('cline', 'databases', storage, 'db');
  }
  for (const id of ['rooveterinaryinc.roo-cline', 'kilocode.kilo-code']) {
    const storage = path.join('.config', '*', 'User', 'globalStorage', id);
    at('roo', 'other', storage);
    at('roo', 'transcripts', storage, 'tasks');
    at('roo', 'checkpoints', storage, 'checkpoints');
  }
  at('claude-code', 'other', '.claude');
  at('claude-code', 'transcripts', '.claude', 'projects');
  for (const logs of ['debug', 'logs', 'traces']) at('claude-code', 'logs', '.claude', logs);
  at('claude-code', 'checkpoints', '.claude', 'file-history');
  at('claude-code', 'other', '.claude.json');
  at('claude-code', 'logs', '.cache', 'claude-cli-nodejs');
  for (const tool of ['.gemini', '.qwen']) {
    at('gemini', 'other', tool);
    at('gemini', 'checkpoints', tool, 'history');
    at('gemini', 'other', tool, 'tmp');
    at('gemini', 'transcripts', tool, 'tmp', '*', 'chats');
    at('gemini', 'logs', tool, 'tmp', '*', 'logs');
    at('gemini', 'tool-output', tool, 'tmp', '*', 'tool-outputs');
    at('gemini', 'checkpoints', tool, 'tmp', '*', 'checkpoints');
  }
  at('codex', 'other', '.codex');
  at('codex', 'transcripts', '.codex', 'sessions');
  at('codex', 'transcripts', '.codex', 'archived_sessions');
  at('codex', 'logs', '.codex', 'log');
  at('codex', 'databases', '.codex', '*.sqlite*');
  at('codex', 'worktrees', '.codex', 'worktrees');
  at('copilot', 'other', '.copilot');
  at('copilot', 'transcripts', '.copilot', 'session-state');
  at('copilot', 'logs', '.copilot', 'logs');
  at('copilot', 'databases', '.copilot', 'session-store.db*');
  at('goose', 'other', '.local', 'state', 'goose');
  at('goose', 'logs', '.local', 'state', 'goose', 'logs');
  at('goose', 'other', '.local', 'share', 'goose');
  at('goose', 'transcripts', '.local', 'share', 'goose', 'sessions');
  return rules;
}

/** The worktree sets' roots the pass looked at: each is the worktrees provider's. */
function setRootRules(report: Report): Rule[] {
  return report.providers
    .filter((root) => root.provider === 'worktrees' && root.ok && !root.warning)
    .map((root) => ({ pattern: root.root, provider: 'worktrees', category: 'worktrees' }));
}

/** The footprint this report should have, worked out from the disk and the report's items alone. */
function expectedFor(report: Report, roots: readonly string[], rules: readonly Rule[]) {
  const scratch = report.items
    .filter((item) => item.path !== null && DELETABLE.includes(item.kind))
    .map((item) => ({ path: item.path as string, provider: item.provider }));
  const fallback = report.items.flatMap((item): Rule[] => {
    const category = OTHER_KINDS[item.kind];
    return item.path !== null && category ? [{ pattern: item.path, provider: item.provider, category }] : [];
  });
  const files = roots.flatMap((root) => filesUnder(root));
  return expectedFootprint(files, classifier([...rules, ...setRootRules(report)], scratch, fallback));
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    const both = [mine, value].every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry));
    out[key] = both ? merge(mine as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return out;
}

const growthOf = (report: Report, provider: ProviderName, category: FootprintCategory) =>
  report.footprint?.find((entry) => entry.provider === provider && entry.category === category)?.growthBytes;

describe('the footprint against the files on disk', () => {
  it("of every provider's demo sandbox, to the byte, and its growth on a second pass", async () => {
    const root = tempDir('aj-footprint-');
    const home = path.join(root, 'home');
    mkdirSync(home, { recursive: true });
    let extra: Record<string, unknown> = {};
    for (const builder of PROVIDERS.map((provider) => provider.sandbox)) {
      const extras = await builder.build({ root, home, old: new Date(Date.now() - 3 * 86_400_000) });
      if (extras?.config) extra = merge(extra, extras.config);
    }
    const dir = path.join(root, 'run');
    mkdirSync(dir);
    const config = merge({ homes: [home], minAge: '1h' }, extra);
    const rules = [
      ...homeRules(home),
      { pattern: path.join(root, 'watchfire-bo', '.watchfire'), provider: 'watchfire', category: 'other' as const },
      {
        pattern: path.join(root, 'watchfire-bo', '.watchfire', 'logs'),
        provider: 'watchfire',
        category: 'logs' as const,
      },
      { pattern: path.join(root, 'tmp', 'claude-*'), provider: 'claude-code', category: 'tool-output' as const },
    ];
    const roots = ['home', 'watchfire-bo', 'tmp', 'var', 'projects'].map((folder) => path.join(root, folder));

    const first = (await pass({ config, dir, reportOnly: true })).report;
    const expected = expectedFor(first, roots, rules);
    expect(reportedFootprint(first)).toEqual(expected);
    // Every provider has its tool's state in the sandbox, and every category is found somewhere.
    expect(new Set([...expected.values()].map((entry) => entry.provider))).toEqual(
      new Set(PROVIDERS.map((provider) => provider.name)),
    );
    for (const entry of first.footprint ?? []) expect(entry.growthBytes).toBeUndefined();

    // A transcript grows, a new log appears, a digest goes.
    const transcript = filesUnder(path.join(home, '.claude', 'projects')).find((file) => file.path.endsWith('.jsonl'));
    appendFileSync(transcript?.path as string, 'x'.repeat(1000));
    const newLog = path.join(home, '.gemini', 'tmp', 'blog', 'logs', 'session-new.jsonl');
    mkdirSync(path.dirname(newLog), { recursive: true });
    writeFileSync(newLog, 'y'.repeat(321));
    const digest = path.join(home, '.watchfire', 'digests', '2026-11-29.md');
    const digestBytes = statSync(digest).size;
    unlinkSync(digest);

    const second = (await pass({ config, dir, reportOnly: true })).report;
    expect(reportedFootprint(second)).toEqual(expectedFor(second, roots, rules));
    expect(growthOf(second, 'claude-code', 'transcripts')).toBe(1000);
    expect(growthOf(second, 'gemini', 'logs')).toBe(321);
    expect(growthOf(second, 'watchfire', 'other')).toBe(-digestBytes);
    const before = new Map(
      (first.footprint ?? []).map((entry) => [`${entry.provider} ${entry.category}`, entry.bytes]),
    );
    for (const entry of second.footprint ?? [])
      expect(entry.growthBytes, `${entry.provider} ${entry.category}`).toBe(
        entry.bytes - (before.get(`${entry.provider} ${entry.category}`) ?? 0),
      );
  });

  it("of the bench's fleet at a small size, to the byte", async () => {
    const base = tempDir('aj-footprint-fleet-');
    const bench = pathToFileURL(path.resolve(import.meta.dirname, '../../bench/lib/fleet.mjs')).href;
    const { buildFleet } = (await import(bench)) as {
      buildFleet: (dir: string, size: Record<string, number>) => { dir: string; homes: string[]; config: string };
    };
    const fleet = buildFleet(path.join(base, 'fleet'), {
      homes: 240,
      filesPerHome: 6,
      kilo: 6,
      kiloFiles: 40,
      worktrees: 6,
      worktreeFiles: 30,
      cline: 4,
      clineFiles: 30,
    });
    const config = parse(readFileSync(fleet.config, 'utf8')) as Record<string, unknown>;
    const dir = path.join(base, 'run');
    mkdirSync(dir);
    const report = (await pass({ config, dir, reportOnly: true })).report;
    const rules = [
      ...fleet.homes.flatMap((home) => homeRules(home)),
      { pattern: path.join(fleet.dir, 'tmp', 'claude-*'), provider: 'claude-code', category: 'tool-output' as const },
    ];
    const expected = expectedFor(report, [path.join(fleet.dir, 'home'), path.join(fleet.dir, 'var')], rules);
    expect(reportedFootprint(report)).toEqual(expected);
    for (const entry of ['watchfire scratch', 'kilo scratch', 'worktrees scratch', 'cline scratch'])
      expect(expected.get(entry)?.files, entry).toBeGreaterThan(20);
  });
});
