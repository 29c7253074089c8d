import path from 'node:path';
import { git } from '../git/git.js';
import { lstatOrNull } from '../safety/fs.js';
import type { WorktreeLink } from './link.js';

/**
 * Why the worktree counts as having a submodule, or null. `git worktree remove` refuses a tree
 * with a populated submodule, and a submodule's own unpushed work is not seen from outside, so
 * any trace of one is enough: a `.gitmodules` file, a `modules/` folder in the admin entry, or a
 * gitlink in the index.
 */
export async function findSubmodule(link: WorktreeLink): Promise<string | null> {
  if (await lstatOrNull(path.join(link.path, '.gitmodules'))) return `${path.join(link.path, '.gitmodules')} declares submodules`;
  const modules = await lstatOrNull(path.join(link.adminDir, 'modules'));
  if (modules?.isDirectory()) return `the admin entry holds submodule repositories in ${path.join(link.adminDir, 'modules')}`;
  const staged = await git(['ls-files', '--stage', '-z'], { cwd: link.path });
  for (const entry of staged.split('\0')) {
    if (entry.startsWith('160000 ')) return `the index holds the gitlink ${entry.slice(entry.indexOf('\t') + 1)}`;
  }
  return null;
}
