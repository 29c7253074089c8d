import { describe, expect, it } from 'vitest';
import { oneVerdictPerPath, type JudgedClaim } from '../../src/pass/claims.js';
import type { Candidate } from '../../src/provider-api/candidate.js';
import type { ProviderName } from '../../src/model/types.js';
import type { Judgement } from '../../src/pass/judge.js';

function claim(
  provider: ProviderName,
  path: string | null,
  verdict: Judgement,
  place: { self: string; above: string[] } | null,
): JudgedClaim<string> {
  const candidate: Candidate = {
    provider,
    kind: 'worktree',
    path,
    root: '/r',
    judgement: { decision: 'delete', reason: 'idle-clean', detail: 'x' },
  };
  return { candidate, facts: `facts of ${path}`, verdict, place };
}

const del: Judgement = { verdict: 'delete', reason: 'idle-clean', detail: 'idle and clean' };
const kept: Judgement = { verdict: 'kept', reason: 'job-open', detail: 'the job is open' };
const refused: Judgement = { verdict: 'refused', reason: 'git-locked', detail: 'locked' };
const unfinished: Judgement = { verdict: 'unfinished', reason: 'review-overdue', detail: 'waits in review' };

describe('one path, one verdict', () => {
  it('leaves claims on different folders alone', () => {
    const settled = oneVerdictPerPath([
      claim('owl', '/a', del, { self: '1:10', above: ['1:2', '1:1'] }),
      claim('worktrees', '/b', kept, { self: '1:11', above: ['1:2', '1:1'] }),
      claim('owl', null, unfinished, null),
    ]);
    expect(settled.map((s) => [s.primary.candidate.path, s.verdict.verdict, s.claims.length])).toEqual([
      ['/a', 'delete', 0],
      ['/b', 'kept', 0],
      [null, 'unfinished', 0],
    ]);
  });

  for (const [winner, loser] of [
    [unfinished, refused],
    [unfinished, del],
    [refused, kept],
    [kept, del],
  ] as const) {
    it(`gives one folder claimed twice the most cautious verdict: ${winner.verdict} over ${loser.verdict}`, () => {
      for (const order of [
        [winner, loser],
        [loser, winner],
      ]) {
        const settled = oneVerdictPerPath([
          claim('owl', '/w/1', order[0] as Judgement, { self: '1:10', above: ['1:2'] }),
          claim('worktrees', '/link/1', order[1] as Judgement, { self: '1:10', above: ['1:2'] }),
        ]);
        expect(settled).toHaveLength(1);
        expect(settled[0]?.verdict).toMatchObject({ verdict: winner.verdict, reason: winner.reason });
        expect(settled[0]?.claims.map((c) => c.provider).sort()).toEqual(['owl', 'worktrees']);
      }
    });
  }

  it('settles a folder with the claims inside it: the outermost is reported and deleted only if all agree', () => {
    const outer = claim('watchfire', '/h/home', del, { self: '1:20', above: ['1:2', '1:1'] });
    const inner = claim('kilo', '/h/home/repo', kept, { self: '1:21', above: ['1:20', '1:2', '1:1'] });
    const [settled] = oneVerdictPerPath([inner, outer]);
    expect(settled?.primary).toBe(outer);
    expect(settled?.verdict).toMatchObject({ verdict: 'kept', reason: 'job-open' });
    expect(settled?.verdict.detail).toContain('watchfire (worktree /h/home) says delete (idle-clean)');
    expect(settled?.claims[0]).toMatchObject({ provider: 'watchfire', path: '/h/home', verdict: 'would-delete' });

    const [agreed] = oneVerdictPerPath([claim('kilo', '/h/home/repo', del, inner.place), outer]);
    expect(agreed?.primary).toBe(outer);
    expect(agreed?.verdict.verdict).toBe('delete');
  });

  it('joins chains: a claim inside a claim inside a claim is one item', () => {
    const settled = oneVerdictPerPath([
      claim('kilo', '/a/b/c', del, { self: '3', above: ['2', '1'] }),
      claim('owl', '/a', del, { self: '1', above: [] }),
      claim('worktrees', '/a/b', refused, { self: '2', above: ['1'] }),
    ]);
    expect(settled).toHaveLength(1);
    expect(settled[0]?.primary.candidate.path).toBe('/a');
    expect(settled[0]?.verdict.verdict).toBe('refused');
  });

  it("judges one of git's temporary files on its own inside a folder that stays, and with the folder that goes", () => {
    const garbage = (verdict: Judgement, above: string[]) => {
      const judged = claim('kilo', '/s/repo/objects/pack/tmp_pack_1', verdict, { self: '1:50', above });
      judged.candidate = { ...judged.candidate, kind: 'git-garbage', removal: { type: 'file', repository: '/r' } };
      return judged;
    };
    const stays = oneVerdictPerPath([
      claim('kilo', '/s/repo', kept, { self: '1:20', above: ['1:2'] }),
      garbage(del, ['1:40', '1:30', '1:20', '1:2']),
    ]);
    expect(stays.map((s) => [s.primary.candidate.path, s.verdict.verdict, s.claims.length])).toEqual([
      ['/s/repo', 'kept', 0],
      ['/s/repo/objects/pack/tmp_pack_1', 'delete', 0],
    ]);
    const goes = oneVerdictPerPath([
      claim('kilo', '/s/repo', del, { self: '1:20', above: ['1:2'] }),
      garbage(refused, ['1:40', '1:30', '1:20', '1:2']),
    ]);
    expect(goes).toHaveLength(1);
    expect(goes[0]?.primary.candidate.path).toBe('/s/repo');
    expect(goes[0]?.verdict.verdict).toBe('refused');
  });
});
