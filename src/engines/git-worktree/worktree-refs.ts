import path from 'node:path';
import { git } from '../../git/git.js';
import { lstatOrNullSync } from '../../safety/fs/stat.js';
import type { KeepingRef } from './ref-files.js';
import type { WorktreeLink } from './link.js';
import { readLooseRefs, type LooseRef } from './ref-files.js';

/**
 * The refs git keeps per worktree, which `git worktree remove` deletes with its admin entry: a
 * commit that only they hold is lost with the worktree. (Pseudo-refs such as ORIG_HEAD and the HEAD
 * reflog go too, but what only they remember is git's garbage, collected in time anyway.)
 */
const PER_WORKTREE_REFS = ['refs/worktree', 'refs/bisect', 'refs/rewritten'];

/** A worktree's own refs and the object each names: from its admin entry's files, else from git. */
export async function listWorktreeRefs(link: WorktreeLink): Promise<KeepingRef[]> {
  return readWorktreeRefFiles(link) ?? listWorktreeRefsFromGit(link.path);
}

/** Per-worktree refs of a git dir: a linked worktree's admin entry, in the repository whose common dir is given. */
type RefPlace = Pick<WorktreeLink, 'adminDir' | 'commonDir'>;

/**
 * Per-worktree refs live as loose files under `<admin>/refs/` and are never packed; most
 * worktrees have no `refs/` folder there at all, and then this is one lstat. Null (git is asked)
 * for anything else: the reftable backend, a symbolic ref, a name or content the reader does not
 * fully understand.
 */
export function readWorktreeRefFiles(link: RefPlace): KeepingRef[] | null {
  try {
    for (const dir of [link.adminDir, link.commonDir])
      if (lstatOrNullSync(path.join(dir, 'reftable')) !== null) return null;
    const refs = lstatOrNullSync(path.join(link.adminDir, 'refs'));
    if (refs === null) return [];
    if (!refs.isDirectory()) return null;
    const loose = new Map<string, LooseRef>();
    for (const top of PER_WORKTREE_REFS) if (!readLooseRefs(link.adminDir, top, loose)) return null;
    const found: KeepingRef[] = [];
    for (const [name, ref] of loose) {
      if (ref.kind !== 'object') return null;
      found.push({ name, commit: ref.id });
    }
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return null;
  }
}

/** `git for-each-ref` in the worktree, where these names mean its own refs. */
export async function listWorktreeRefsFromGit(worktree: string): Promise<KeepingRef[]> {
  const out = await git(['for-each-ref', '--format=%(objectname) %(refname)', ...PER_WORKTREE_REFS], {
    cwd: worktree,
  });
  const refs: KeepingRef[] = [];
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    if (space < 0)
      throw new Error(`git for-each-ref printed a line this version does not know: ${JSON.stringify(line)}`);
    refs.push({ name: line.slice(space + 1), commit: line.slice(0, space) });
  }
  return refs;
}
