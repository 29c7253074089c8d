import path from 'node:path';
import { isInside } from '../../safety/inside.js';
import type { OwnerRepoFacts } from './owner-repo.js';

/** The spellings of W that R's records may use: as recorded, and below R's canonical path. */
export function spellingsOf(worktree: string, facts: OwnerRepoFacts): string[] {
  const spellings = [path.resolve(worktree)];
  if (facts.canonical && isInside(facts.path, worktree))
    spellings.push(path.join(facts.canonical, path.relative(facts.path, worktree)));
  return spellings;
}
