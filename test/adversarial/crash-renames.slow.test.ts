import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { materializePin } from '../../src/providers/kilo/layout.js';
import { expectOnlyTargetsTouched } from './support/compare.js';
import { ageKiloLocks, crashAndRecover, crashBench, type KnownGap } from './support/crash-bench.js';
import { RENAMES, renameDone, straceAvailable, type KillPoint } from './support/trace.js';

/**
 * Issue 6, case 1 (renames): a pass over a fleet with targets in every provider is killed, with all
 * its children, right after one of its quarantine renames; the next pass must leave the state an
 * uninterrupted pass leaves. By default one rename of each kind of item is tried (five kill
 * points); `AJ_CRASH_ALL=1` tries every rename the pass makes.
 */

const bench = straceAvailable() ? await crashBench() : null;
afterAll(() => bench?.dispose());

interface RenameCase {
  point: KillPoint;
  kind: string;
  from: string;
}

function renameCases(): RenameCase[] {
  if (!bench) return [];
  const items = bench.referenceReport.items;
  const all = bench.renames.map((rename): RenameCase => {
    const item = items.find((entry) => entry.path === rename.from);
    const kind = item
      ? `${item.provider} ${item.kind}`
      : `what goes with an item, in ${path.basename(path.dirname(rename.from))}`;
    const label = `after renaming ${path.relative(bench.fleet.fleet, rename.from)}`;
    return {
      kind,
      from: rename.from,
      point: { label, syscalls: RENAMES, paths: [rename.from], at: 'exit', done: renameDone },
    };
  });
  if (process.env.AJ_CRASH_ALL === '1') return all;
  // One of each kind of item, and every Kilo repository (one has a pin, the other not).
  const seen = new Set<string>();
  return all.filter(
    (entry) => bench.fleet.kilo.doomed.includes(entry.from) || (!seen.has(entry.kind) && seen.add(entry.kind)),
  );
}

const cases = renameCases();
const kiloRepos = bench ? bench.fleet.kilo.doomed : [];

/**
 * Known gaps in Kilo's removal, reported and not fixed here (src/providers/kilo): a pass killed
 * between its rename and the end of the delete leaves Kilo's lock folder behind (stale after
 * Kilo's 60 s, then never removed), and the pin of a seeded repository, dropped only after the
 * delete, stays in the owner repository.
 */
function kiloGaps(gitdir: string): KnownGap[] {
  if (!bench) return [];
  const relative = (p: string) => path.relative(bench.fleet.fleet, p);
  const locks = relative(path.join(bench.fleet.kilo.state, 'locks'));
  const gaps: KnownGap[] = [
    { why: "a killed pass's Kilo lock folder stays", explains: (key) => key.startsWith(`${locks}${path.sep}`) },
  ];
  const pin = relative(path.join(bench.fleet.kilo.repo, '.git', materializePin(gitdir)));
  if (bench.original.has(pin))
    gaps.push({ why: 'the pin of a seeded checkpoint repository stays in its owner', explains: (key) => key === pin });
  return gaps;
}

describe.runIf(bench)('a pass killed right after a quarantine rename is finished by the next', () => {
  it('the uninterrupted pass deletes exactly its targets, in every provider', () => {
    if (!bench) return;
    expect(bench.referenceCode).toBe(0);
    const deleted = bench.referenceReport.items.filter((item) => item.verdict === 'deleted');
    expect([...new Set(deleted.map((item) => item.provider))].sort()).toEqual([
      'kilo',
      'owl',
      'watchfire',
      'worktrees',
    ]);
    expectOnlyTargetsTouched(
      bench.original,
      bench.reference,
      { targets: bench.targets, scratch: bench.scratch },
      'the uninterrupted pass',
    );
    for (const target of bench.targets) expect(bench.reference.has(target), `${target} is gone`).toBe(false);
    expect(cases.length).toBeGreaterThanOrEqual(4);
  });

  it.each(cases.map((entry) => [`${entry.point.label} (${entry.kind})`, entry] as const))(
    'killed %s',
    async (_label, entry) => {
      if (!bench) return;
      const isKilo = kiloRepos.includes(entry.from);
      const outcome = await crashAndRecover(bench, entry.point, {
        beforeNext: isKilo ? () => expect(ageKiloLocks(bench.fleet)).toHaveLength(1) : undefined,
        gaps: isKilo ? kiloGaps(entry.from) : [],
      });
      const quarantine = [...outcome.afterKill.keys()].find((key) =>
        key.startsWith(
          path.relative(
            bench.fleet.fleet,
            path.join(path.dirname(entry.from), `.${path.basename(entry.from)}.cleanup-`),
          ),
        ),
      );
      expect(quarantine, 'the killed pass left its quarantine').toBeDefined();
      const finished = outcome.next.items.find(
        (item) => item.path === path.join(bench.fleet.fleet, quarantine as string),
      );
      expect(finished).toMatchObject({ kind: 'quarantine', verdict: 'deleted', reason: 'quarantine-leftover' });
    },
  );
});
