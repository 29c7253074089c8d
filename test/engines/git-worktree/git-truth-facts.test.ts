import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { examineWorktrees } from '../../../src/engines/git-worktree/evidence.js';
import { compareFlagged } from '../../../src/engines/git-worktree/flagged.js';
import { readIndexFacts } from '../../../src/engines/git-worktree/index-gitlinks.js';
import { readWorktreeLink, type WorktreeLink } from '../../../src/engines/git-worktree/link.js';
import { operationInProgress } from '../../../src/engines/git-worktree/operations.js';
import { indexFromGit, readWorktreeIndex } from '../../../src/engines/git-worktree/submodules.js';
import { listWorktreeRefsFromGit, readWorktreeRefFiles } from '../../../src/engines/git-worktree/worktree-refs.js';
import { put } from '../../helpers/fs-fixtures.js';
import { tempDir } from '../../helpers/temp.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

function linkOf(worktree: string): WorktreeLink {
  const linked = readWorktreeLink(worktree);
  if (!linked.ok) throw new Error(linked.detail);
  return linked.link;
}

const indexOf = (worktree: string) => path.join(sh(worktree, 'rev-parse', '--absolute-git-dir').trim(), 'index');

/** A worktree with files in every flag state: assume-unchanged, skip-worktree, both, neither. */
function flaggedWorktree(dir: string, objectFormat?: string): string {
  const repo = path.join(dir, 'repo');
  for (const name of ['plain.txt', 'assumed.txt', 'skipped.txt', 'both.txt']) put(path.join(repo, name), `${name}\n`);
  sh(dir, 'init', '-q', ...(objectFormat ? [`--object-format=${objectFormat}`] : []), repo);
  sh(repo, 'add', '.');
  sh(repo, 'commit', '-q', '-m', 'first');
  const worktree = addWorktree(repo, path.join(dir, 'wt'), 'agent/flags');
  sh(worktree, 'update-index', '--assume-unchanged', 'assumed.txt', 'both.txt');
  sh(worktree, 'update-index', '--skip-worktree', 'skipped.txt', 'both.txt');
  return worktree;
}

describe('worktree engine: index entries flagged assume-unchanged or skip-worktree', () => {
  it('reads the flags from index versions 3 and 4 and from a SHA-256 repository exactly as git ls-files -v lists them', async () => {
    const dir = tempDir();
    for (const [name, format] of [
      ['sha1', undefined],
      ['sha256', 'sha256'],
    ] as const) {
      const worktree = flaggedWorktree(path.join(dir, name), format);
      const index = indexOf(worktree);
      const fromGit = await indexFromGit(worktree);
      expect(fromGit.flagged.map((entry) => entry.path).sort()).toEqual(['assumed.txt', 'both.txt', 'skipped.txt']);
      expect(fromGit.flagged.find((entry) => entry.path === 'both.txt')).toMatchObject({
        assumeUnchanged: true,
        skipWorktree: true,
        mode: 0o100644,
      });
      // skip-worktree is an extended flag: git writes version 3 for it.
      expect(readFileSync(index).readUInt32BE(4)).toBe(3);
      expect(await readIndexFacts(index)).toEqual(fromGit);
      sh(worktree, 'update-index', '--index-version', '4');
      expect(readFileSync(index).readUInt32BE(4)).toBe(4);
      expect(await readIndexFacts(index)).toEqual(fromGit);
    }
  });

  it('asks git for the flags of an index the reader does not understand (a split index)', async () => {
    const dir = tempDir();
    const worktree = flaggedWorktree(dir);
    const expected = await indexFromGit(worktree);
    sh(worktree, 'update-index', '--split-index');
    expect(await readIndexFacts(indexOf(worktree))).toMatchObject({ known: false });
    expect(await readWorktreeIndex(linkOf(worktree))).toEqual(expected);
  });

  it('compares the flagged files as git would: end-of-line rules applied, links by target, the exec bit unless core.fileMode is off', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const worktree = addWorktree(repo, path.join(dir, 'wt'), 'agent/compare');
    put(path.join(worktree, '.gitattributes'), '*.crlf eol=crlf\n');
    put(path.join(worktree, 'notes.crlf'), 'one\ntwo\n');
    symlinkSync('README.md', path.join(worktree, 'link'));
    sh(worktree, 'add', '.');
    sh(worktree, 'commit', '-q', '-m', 'eol and a link');
    rmSync(path.join(worktree, 'notes.crlf'));
    sh(worktree, 'checkout', '--', 'notes.crlf');
    // On disk with CRLF, in the blob with LF: the same content to git.
    expect(readFileSync(path.join(worktree, 'notes.crlf'), 'utf8')).toBe('one\r\ntwo\r\n');
    sh(worktree, 'update-index', '--assume-unchanged', 'notes.crlf', 'link', 'README.md');
    const flagged = async () => compareFlagged(worktree, (await readWorktreeIndex(linkOf(worktree))).flagged);

    expect(await flagged()).toEqual({ count: 0, sample: [] });

    rmSync(path.join(worktree, 'link'));
    symlinkSync('.gitignore', path.join(worktree, 'link'));
    expect(await flagged()).toEqual({ count: 1, sample: ['link'] });
    rmSync(path.join(worktree, 'link'));
    symlinkSync('README.md', path.join(worktree, 'link'));

    writeFileSync(path.join(worktree, 'notes.crlf'), 'one\r\ntwo, edited\r\n');
    expect(await flagged()).toEqual({ count: 1, sample: ['notes.crlf'] });
    writeFileSync(path.join(worktree, 'notes.crlf'), 'one\r\ntwo\r\n');

    chmodSync(path.join(worktree, 'README.md'), 0o755);
    expect(await flagged()).toEqual({ count: 1, sample: ['README.md'] });
    sh(worktree, 'config', 'core.fileMode', 'false');
    expect(await flagged()).toEqual({ count: 0, sample: [] });
    sh(worktree, 'config', 'core.fileMode', 'true');
    chmodSync(path.join(worktree, 'README.md'), 0o644);

    rmSync(path.join(worktree, 'README.md'));
    mkdirSync(path.join(worktree, 'README.md'));
    expect(await flagged()).toEqual({ count: 1, sample: ['README.md'] });
  });
});

describe('worktree engine: the worktree’s own refs', () => {
  it('reads refs/worktree, refs/bisect and refs/rewritten from the admin entry as git lists them; anything odd goes to git', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const worktree = addWorktree(repo, path.join(dir, 'wt'), 'agent/refs');
    const other = addWorktree(repo, path.join(dir, 'other'), 'agent/other');
    expect(readWorktreeRefFiles(linkOf(worktree))).toEqual([]);
    const commit = commitFile(worktree, 'a.txt', 'a\n');
    for (const ref of ['refs/worktree/keep', 'refs/worktree/deep/er', 'refs/bisect/bad', 'refs/rewritten/onto'])
      sh(worktree, 'update-ref', ref, commit);
    sh(other, 'update-ref', 'refs/worktree/not-mine', commit);
    sh(repo, 'update-ref', 'refs/bisect/main-worktree', commit);

    const fromGit = await listWorktreeRefsFromGit(worktree);
    expect(fromGit.map((ref) => ref.name)).toEqual([
      'refs/bisect/bad',
      'refs/rewritten/onto',
      'refs/worktree/deep/er',
      'refs/worktree/keep',
    ]);
    expect(readWorktreeRefFiles(linkOf(worktree))).toEqual(fromGit);

    sh(worktree, 'symbolic-ref', 'refs/worktree/pointer', 'refs/heads/main');
    expect(readWorktreeRefFiles(linkOf(worktree))).toBeNull();
    mkdirSync(path.join(linkOf(worktree).commonDir, 'reftable'));
    expect(readWorktreeRefFiles(linkOf(other))).toBeNull();
  });

  it('counts a commit only they hold, and not one a branch also holds', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const worktree = addWorktree(repo, path.join(dir, 'wt'), 'agent/refs');
    const lost = commitFile(worktree, 'lost.txt', 'only a worktree ref holds this\n');
    sh(worktree, 'reset', '-q', '--hard', 'HEAD~');
    sh(worktree, 'update-ref', 'refs/worktree/lost', lost);
    sh(worktree, 'update-ref', 'refs/bisect/good', sh(repo, 'rev-parse', 'main').trim());
    const [evidence] = await examineWorktrees([worktree]);
    if (evidence?.state !== 'linked' || !evidence.git) throw new Error(JSON.stringify(evidence));
    expect(evidence.git.worktreeRefs).toEqual([
      {
        name: 'refs/bisect/good',
        commit: sh(repo, 'rev-parse', 'main').trim(),
        containingRefs: expect.arrayContaining(['refs/heads/main']),
      },
      { name: 'refs/worktree/lost', commit: lost, containingRefs: [] },
    ]);
  });
});

describe('worktree engine: operations in progress', () => {
  it('names each operation git leaves a marker for in the worktree’s own git dir', () => {
    const dir = tempDir();
    const admin = path.join(dir, 'admin');
    mkdirSync(admin);
    expect(operationInProgress(admin)).toBeNull();
    for (const [marker, says] of [
      ['rebase-merge', 'a rebase'],
      ['rebase-apply', 'a rebase'],
      ['MERGE_HEAD', 'a merge'],
      ['CHERRY_PICK_HEAD', 'a cherry-pick'],
      ['REVERT_HEAD', 'a revert'],
      ['sequencer', 'a cherry-pick or revert'],
      ['BISECT_LOG', 'a bisect'],
      ['BISECT_START', 'a bisect'],
    ] as const) {
      put(path.join(admin, marker), '');
      expect(operationInProgress(admin), marker).toContain(says);
      rmSync(path.join(admin, marker));
    }
  });
});

describe('worktree engine: nothing flagged, no refs of its own, nothing in progress costs no git process', () => {
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it('runs the same git commands as before for plain worktrees', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const trees = ['a', 'b', 'c'].map((name) => addWorktree(repo, path.join(dir, name), `agent/${name}`));
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = path.join(dir, 'bin');
    const log = path.join(dir, 'calls.log');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    writeFileSync(log, '');
    process.env.PATH = `${bin}:${savedPath}`;

    const evidence = await examineWorktrees(trees);

    for (const found of evidence)
      expect(found).toMatchObject({ state: 'linked', git: { worktreeRefs: [], operation: null } });
    const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // The statuses, started by git; no hash-object, ls-files, config, for-each-ref or rev-list.
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((call) => !call.includes(' for-each-repo '))).toEqual([]);
  });
});
