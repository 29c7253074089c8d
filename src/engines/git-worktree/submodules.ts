import path from 'node:path';
import { git } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readIndexFacts, type FlaggedEntry, type IndexFacts } from './index-gitlinks.js';
import type { WorktreeLink } from './link.js';

/** What a worktree's index holds, from the file itself or, where the reader is unsure, from git. */
export type KnownIndex = Extract<IndexFacts, { known: true }>;

/** Reads the worktree's index without git; git is asked only when the file is one the reader does not fully understand. */
export async function readWorktreeIndex(link: WorktreeLink): Promise<KnownIndex> {
  const index = await readIndexFacts(path.join(link.adminDir, 'index'));
  return index.known ? index : indexFromGit(link.path);
}

/**
 * Why the worktree counts as having a submodule, or null. `git worktree remove` refuses a tree
 * with a populated submodule, and a submodule's own unpushed work is not seen from outside, so
 * any trace of one is enough: a `.gitmodules` file, a `modules/` folder in the admin entry, or a
 * gitlink in the index.
 */
export async function findSubmodule(link: WorktreeLink, index: KnownIndex): Promise<string | null> {
  if (await lstatOrNull(path.join(link.path, '.gitmodules')))
    return `${path.join(link.path, '.gitmodules')} declares submodules`;
  const modules = await lstatOrNull(path.join(link.adminDir, 'modules'));
  if (modules?.isDirectory())
    return `the admin entry holds submodule repositories in ${path.join(link.adminDir, 'modules')}`;
  const gitlink = index.gitlinks[0];
  return gitlink === undefined ? null : `the index holds the gitlink ${gitlink}`;
}

/**
 * `git ls-files --stage -v`: each entry's tag (lower case when assume-unchanged, `S` or `s` when
 * skip-worktree), mode, object id and path. A sparse index is expanded by git for this listing.
 */
export async function indexFromGit(worktree: string): Promise<KnownIndex> {
  const staged = await git(['ls-files', '--stage', '-v', '-z'], { cwd: worktree });
  const gitlinks: string[] = [];
  const flagged: FlaggedEntry[] = [];
  for (const entry of staged.split('\0')) {
    if (entry === '') continue;
    const tab = entry.indexOf('\t');
    const [tag = '', mode = '', oid = ''] = entry.slice(0, tab).split(' ');
    const file = entry.slice(tab + 1);
    if (tab < 0 || tag.length !== 1 || !/^[0-7]{6}$/.test(mode) || !/^[0-9a-f]{40,64}$/.test(oid))
      throw new Error(
        `git ls-files in ${worktree} printed an entry this version does not know: ${JSON.stringify(entry)}`,
      );
    if (mode === '160000') gitlinks.push(file);
    const skipWorktree = tag === 'S' || tag === 's';
    const assumeUnchanged = tag !== tag.toUpperCase();
    if (skipWorktree || assumeUnchanged)
      flagged.push({ path: file, mode: Number.parseInt(mode, 8), oid, assumeUnchanged, skipWorktree });
  }
  return { known: true, gitlinks, flagged };
}
