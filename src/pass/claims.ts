import type { Judgement } from './judge.js';
import type { Place } from '../safety/place.js';
import { onOneFile, type Candidate } from '../provider-api/candidate.js';
import type { Claim } from '../model/types.js';

export interface JudgedClaim<Facts> {
  candidate: Candidate;
  facts: Facts;
  verdict: Judgement;
  /** Where the folder is (its identity and the identities above it), or null for a finding without one. */
  place: Place | null;
}

export interface Settled<Facts> {
  /** The outermost claim: its folder is the one reported, and the one deleted if all agree. */
  primary: JudgedClaim<Facts>;
  verdict: Judgement;
  /** Every claim on the folder and on folders inside it, the primary's first; empty when it is alone. */
  claims: Claim[];
}

/**
 * Whether a claim is removed on its own even inside a folder another claim keeps: a single file
 * (one of git's temporary files in a live repository, a log past its owner's retention, a SQLite
 * log a checkpoint reclaims). Inside a folder that is to be deleted, it goes with that folder and
 * is judged with it.
 */
export const standsApart = (candidate: Candidate): boolean => onOneFile(candidate.removal);

/** How cautious a verdict is: the most cautious claim on a folder decides for all of them. */
const CAUTION: Record<Judgement['verdict'], number> = {
  unfinished: 3,
  refused: 2,
  kept: 1,
  'would-delete': 0,
  delete: 0,
};

/**
 * One path, one verdict (contract rule 16). Claims on the same folder (by identity, however each
 * provider reached it: a link, `..`, a bind mount), or on a folder inside another claimed one, are
 * settled together: deleting the outer folder deletes the inner one, so the most cautious verdict
 * of all of them (unfinished > refused > kept > delete) is the verdict of the outermost, which is
 * reported once and names every claim. A file that stands apart (see standsApart) inside a folder
 * that is not to be deleted is the one exception: it is its own item. Pure.
 */
export function oneVerdictPerPath<Facts>(judged: ReadonlyArray<JudgedClaim<Facts>>): Settled<Facts>[] {
  const parent = judged.map((_, k) => k);
  const find = (k: number): number => {
    while (parent[k] !== k) {
      parent[k] = parent[parent[k] as number] as number;
      k = parent[k] as number;
    }
    return k;
  };
  const claimedAt = new Map<string, number>();
  judged.forEach((claim, k) => {
    if (claim.place && !claimedAt.has(claim.place.self)) claimedAt.set(claim.place.self, k);
  });
  judged.forEach((claim, k) => {
    if (!claim.place) return;
    const apart = standsApart(claim.candidate);
    for (const key of [claim.place.self, ...claim.place.above]) {
      const other = claimedAt.get(key);
      if (other === undefined) continue;
      // A file that goes on its own, inside a folder that stays, is judged on its own.
      if (apart && key !== claim.place.self && (judged[other] as JudgedClaim<Facts>).verdict.verdict !== 'delete')
        continue;
      parent[find(k)] = find(other);
    }
  });
  const groups = new Map<number, number[]>();
  judged.forEach((_, k) => {
    const root = find(k);
    const members = groups.get(root);
    if (members) members.push(k);
    else groups.set(root, [k]);
  });
  return [...groups.values()].map((members) => settle(members.map((k) => judged[k] as JudgedClaim<Facts>)));
}

function settle<Facts>(members: JudgedClaim<Facts>[]): Settled<Facts> {
  if (members.length === 1) {
    const only = members[0] as JudgedClaim<Facts>;
    return { primary: only, verdict: only.verdict, claims: [] };
  }
  const cautious = (a: JudgedClaim<Facts>, b: JudgedClaim<Facts>) =>
    CAUTION[b.verdict.verdict] - CAUTION[a.verdict.verdict];
  const selves = new Set(members.map((member) => member.place?.self));
  const outermost = members.filter((member) => !member.place?.above.some((key) => selves.has(key)));
  const primary = outermost.sort(cautious)[0];
  const decisive = [...members].sort(cautious)[0] as JudgedClaim<Facts>;
  const ordered = [primary as JudgedClaim<Facts>, ...members.filter((member) => member !== primary)];
  const claims = ordered.map(
    (member): Claim => ({
      provider: member.candidate.provider,
      kind: member.candidate.kind,
      path: member.candidate.path,
      verdict: member.verdict.verdict === 'delete' ? 'would-delete' : member.verdict.verdict,
      reason: member.verdict.reason,
    }),
  );
  const others = claims
    .filter((_, k) => ordered[k] !== decisive)
    .map(
      (claim) =>
        `${claim.provider} (${claim.kind} ${claim.path}) says ${verdictWords(claim.verdict)} (${claim.reason})`,
    );
  return {
    primary: primary as JudgedClaim<Facts>,
    verdict: {
      ...decisive.verdict,
      detail: `${decisive.verdict.detail}; judged once for all who claim this folder, the most cautious verdict wins: ${others.join('; ')}`,
    },
    claims,
  };
}

function verdictWords(verdict: Claim['verdict']): string {
  return verdict === 'would-delete' ? 'delete' : verdict;
}
