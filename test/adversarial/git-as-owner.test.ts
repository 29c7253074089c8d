import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { itemAt, pass } from '../helpers/pass.js';
import { tempDir } from '../helpers/temp.js';
import { addWorktree, commitFile, makeRepo, sh } from '../helpers/git-fixtures.js';

const USER = 4343;

function chownTree(root: string, uid: number): void {
  chownSync(root, uid, uid);
  if (!lstatSync(root).isDirectory()) return;
  for (const name of readdirSync(root)) chownTree(path.join(root, name), uid);
}

/**
 * A user's repository whose config names a clean filter (a program of the user's choosing) for
 * every file, and a worktree of it in a worktree set, with files git must run through that filter
 * to compare: one whose stat data no longer matches the index, one flagged assume-unchanged and
 * edited. The filter notes the uid it runs as, then passes the content through unchanged.
 */
function plantedFilter(): { dir: string; worktree: string; uids: string; config: Record<string, unknown> } {
  const dir = tempDir('aj-filter-');
  chmodSync(dir, 0o755);
  const uids = path.join(dir, 'filter-uids');
  writeFileSync(uids, '');
  chmodSync(uids, 0o666);
  const repo = makeRepo(path.join(dir, 'repo'));
  sh(repo, 'config', 'filter.spy.clean', `sh -c 'id -u >> ${uids}; cat'`);
  put(path.join(repo, '.gitattributes'), '* filter=spy\n');
  sh(repo, 'add', '.gitattributes');
  sh(repo, 'commit', '-q', '-m', 'attributes');
  const worktree = addWorktree(repo, path.join(dir, 'sets', 'feature'), 'feature');
  commitFile(worktree, 'notes.txt', 'notes\n');
  commitFile(worktree, 'flagged.txt', 'flagged\n');
  sh(worktree, 'update-index', '--assume-unchanged', 'flagged.txt');
  put(path.join(worktree, 'flagged.txt'), 'edited while flagged\n');
  sh(repo, 'branch', 'keep', 'feature');
  chownTree(dir, USER);
  chownSync(dir, 0, 0);
  chownSync(uids, 0, 0);
  backdate(path.join(dir, 'repo'), daysAgo(3));
  backdate(path.join(dir, 'sets'), daysAgo(3));
  writeFileSync(uids, '');
  return {
    dir,
    worktree,
    uids,
    config: {
      homes: [path.join(dir, 'nobody')],
      minAge: '1h',
      providers: { worktrees: { sets: [{ name: 'spied', roots: [path.join(dir, 'sets')], idleAfter: '1d' }] } },
    },
  };
}

describe.runIf(process.geteuid?.() === 0)("a repository's programs, run as root over its owner's worktree", () => {
  it('run only as the owner: the clean filter the user configured never runs as root', async () => {
    const { dir, worktree, uids, config } = plantedFilter();

    const { report } = await pass({ dir, config, only: ['worktrees'], reportOnly: true });

    const ran = readFileSync(uids, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    // git compared the files through the filter (status for the touched file, hash-object for the flagged one)...
    expect(ran.length).toBeGreaterThan(0);
    // ...and never as root.
    expect(new Set(ran)).toEqual(new Set([String(USER)]));
    expect(itemAt(report, worktree)).toMatchObject({ verdict: 'unfinished', reason: 'uncommitted-changes' });
    expect(existsSync(worktree)).toBe(true);
  });
});
