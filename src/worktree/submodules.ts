import path from 'node:path';
import { git } from '../git/git.js';
import { lstatOrNull } from '../safety/fs.js';
import { readIndexGitlinks } from './index-gitlinks.js';
import type { WorktreeLink } from './link.js';

/**
 * Why the worktree counts as having a submodule, or null. `git worktree remove` refuses a tree
 * with a populated submodule, and a submodule's own unpushed work is not seen from outside, so
 * any trace of one is enough: a `.gitmodules` file, a `modules/` folder in the admin entry, or a
 * gitlink in the index. The index is read directly; git is asked only when the file is one the
 * reader does not fully understand.
 */
export async function findSubmodule(link: WorktreeLink): Promise<string | null> {
  if (await lstatOrNull(path.join(link.path, '.gitmodules')))
    return `${path.join(link.path, '.gitmodules')} declares submodules`;
  const modules = await lstatOrNull(path.join(link.adminDir, 'modules'));
  if (modules?.isDirectory())
    return `the admin entry holds submodule repositories in ${path.join(link.adminDir, 'modules')}`;
  const index = await readIndexGitlinks(path.join(link.adminDir, 'index'));
  const gitlink = index.known ? index.gitlink : await gitlinkFromGit(link.path);
  return gitlink === null ? null : `the index holds the gitlink ${gitlink}`;
}

export async function gitlinkFromGit(worktree: string): Promise<string | null> {
  const staged = await git(['ls-files', '--stage', '-z'], { cwd: worktree });
  for (const entry of staged.split('\0')) {
    if (entry.startsWith('160000 ')) return entry.slice(entry.indexOf('\t') + 1);
  }
  return null;
}
