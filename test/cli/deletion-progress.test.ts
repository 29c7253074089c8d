import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Report } from '../../src/model/types.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { sessionName } from '../../src/providers/watchfire/slug.js';
import { buildFleet, restoreFleet, saveFleet, type Fleet } from '../adversarial/support/fleet.js';
import { CLI } from '../helpers/cli.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { gitWrapper } from '../helpers/git-wrapper.js';
import { inTerminal } from '../helpers/terminal.js';

// What a person at a terminal sees of a pass that deletes hundreds of items: a fleet of every
// provider's scratch plus a few hundred Watchfire homes of deleted projects, and a git that answers
// slowly, so that each phase lasts long enough to be drawn more than once.

const DEAD_HOMES = 300;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that clears a terminal line is what they match
const DRAWN = /\r\x1b\[2K(agent-janitor [a-z]+: [^\r\n\x1b]*)/g;

/** A line of the deleting phase; its first group is the count of deletions. */
const DELETING =
  /^agent-janitor deleting: [\d,]+ of [\d,]+ items, ([\d,]+) deleted, [\d.]+ [KMG]?i?B of [\d.]+ [KMG]?i?B freed/;

let base: string;
let fleet: Fleet;
let pristine: string;
let slowGit: string;

beforeAll(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), 'aj-deletion-progress-'));
  fleet = await buildFleet(base, { bigTreeFiles: 50 });
  const root = path.join(fleet.home, '.watchfire');
  for (let k = 0; k < DEAD_HOMES; k += 1) {
    const home = path.join(root, 'codex-home', sessionName({ projectName: `Retired ${k}`, mode: 'chat' }));
    put(path.join(home, 'AGENTS.md'), '# Watchfire system prompt\n');
    put(path.join(home, 'sessions', '2026', '11', '27', `rollout-${k}.jsonl`), '{"type":"message"}\n');
    backdate(home, daysAgo(3));
  }
  pristine = saveFleet(fleet);
  slowGit = gitWrapper(path.join(base, 'slow-git'), 'sleep 0.15');
}, 180_000);

beforeEach(() => restoreFleet(fleet, pristine));

afterAll(() => rmSync(base, { recursive: true, force: true }));

const run = (extra = '') =>
  `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --config ${JSON.stringify(fleet.configFile)} ${extra}`;

function report(): Report {
  return JSON.parse(readFileSync(path.join(fleet.reportDir, 'report.json'), 'utf8')) as Report;
}

/** The lines of the progress line drawn, in order, each as it read. */
function drawn(raw: string): string[] {
  return [...raw.matchAll(DRAWN)].map((match) => match[1] as string);
}

describe('a pass that deletes, on a terminal', () => {
  it('shows each phase, the deletions moving, and ends on the summary with one log line for them all', async () => {
    // A checkpoint repository of many objects: Kilo's trees are first walked while inspecting,
    // which then lasts long enough to be drawn.
    const big = fleet.kilo.doomed[0] as string;
    for (let k = 0; k < 40_000; k += 1) put(path.join(big, 'objects', 'scratch', `d${Math.floor(k / 100)}`, `f${k}`));
    backdate(big, daysAgo(3));
    const { screen, raw, status } = await inTerminal(`PATH=${JSON.stringify(slowGit)}:"$PATH" ${run()}`, {
      env: fleet.env,
      timeoutMs: 40_000,
    });
    expect(status, screen).toBe(0);
    const deleted = report().totals.deleted;
    expect(deleted).toBeGreaterThan(DEAD_HOMES);

    const lines = drawn(raw);
    const gathering = lines.filter((line) => line.startsWith('agent-janitor gathering: '));
    const inspecting = lines.filter((line) => line.startsWith('agent-janitor inspecting: '));
    const deleting = lines.filter((line) => line.startsWith('agent-janitor deleting: '));
    // Gathering: the provider at work, which of them all, and the items the providers before it found.
    expect(
      gathering.some((line) =>
        new RegExp(`^agent-janitor gathering: watchfire \\(1 of ${PROVIDERS.length}, \\d+ s\\), 0 items found`).test(
          line,
        ),
      ),
    ).toBe(true);
    const later = new RegExp(`: [a-z-]+ \\([2-9] of ${PROVIDERS.length}, \\d+ s\\), [1-9][\\d,]* items found`);
    expect(gathering.some((line) => later.test(line))).toBe(true);
    expect(
      inspecting.some((line) =>
        /^agent-janitor inspecting: [\d,]+ of [\d,]+ items, [\d.]+ [KMG]?i?B measured$/.test(line),
      ),
    ).toBe(true);
    // Deleting: done of the total, the deletions, and the bytes freed; the count moves.
    for (const line of deleting) expect(line).toMatch(DELETING);
    const counts = deleting.map((line) => Number(DELETING.exec(line)?.[1]?.replaceAll(',', '')));
    expect(new Set(counts).size).toBeGreaterThan(1);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    // The phases come in order.
    const first = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix));
    expect(first('agent-janitor gathering')).toBeLessThan(first('agent-janitor inspecting'));
    expect(first('agent-janitor inspecting')).toBeLessThan(first('agent-janitor deleting'));

    // What is left on the screen: the summary and one log line for the deletions, not one each.
    const shown = screen.split('\n').filter((line) => line.trim() !== '');
    expect(screen).toContain(`agent-janitor: reclaimed`);
    expect(shown.filter((line) => / INFO .*: deleted [\d,]+ items/.test(line))).toEqual([
      expect.stringContaining(`deleted ${deleted.toLocaleString('en-US')} items (`),
    ]);
    expect(shown.filter((line) => /: deleted \{/.test(line))).toEqual([]);
    expect(shown.length).toBeLessThan(60);
    // The progress line was erased: it is nowhere on the final screen.
    expect(screen).not.toMatch(/agent-janitor (gathering|inspecting|deleting):/);
  });

  it('at --log-level debug, shows a line for each deletion as well', async () => {
    const { screen, status } = await inTerminal(run('--log-level debug'), { env: fleet.env, timeoutMs: 40_000 });
    expect(status, screen).toBe(0);
    const deleted = report().items.filter((item) => item.verdict === 'deleted');
    const perItem = screen.split('\n').filter((line) => / DEBUG .*: deleted \{/.test(line));
    expect(perItem).toHaveLength(deleted.length);
    for (const item of deleted) expect(perItem.some((line) => line.includes(JSON.stringify(item.path)))).toBe(true);
    expect(screen).toMatch(/ INFO .*: deleted [\d,]+ items \(/);
  });

  it('with stderr a file: a JSON line for each deletion at info, the summary line, and no progress line', async () => {
    const errors = path.join(base, 'stderr.log');
    const { status, raw } = await inTerminal(`${run()} 2>${JSON.stringify(errors)}`, {
      env: fleet.env,
      timeoutMs: 40_000,
    });
    expect(status, raw).toBe(0);
    expect(raw).toContain('agent-janitor: reclaimed');
    expect(raw).not.toMatch(/agent-janitor (gathering|inspecting|deleting):/);
    const logged = readFileSync(errors, 'utf8');
    expect(logged).not.toContain('\x1b');
    const records = logged
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; path?: string; deleted?: number });
    const deleted = report().items.filter((item) => item.verdict === 'deleted');
    const perItem = records.filter((record) => record.msg === 'deleted');
    expect(perItem.map((record) => record.level)).toEqual(deleted.map(() => 30));
    expect(perItem.map((record) => record.path).sort()).toEqual(deleted.map((item) => item.path).sort());
    const summary = records.filter((record) => /^deleted [\d,]+ items/.test(record.msg));
    expect(summary).toMatchObject([{ level: 30, deleted: deleted.length }]);
    expect(records.some((record) => /gathering|inspecting|deleting:/.test(record.msg))).toBe(false);
  });
});
