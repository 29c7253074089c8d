import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listKeepingRefs, listKeepingRefsFromGit } from '../../../src/engines/git-worktree/ancestry.js';
import { readKeepingRefFiles } from '../../../src/engines/git-worktree/ref-files.js';
import { tempDir } from '../../helpers/temp.js';
import { commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

const KEEPING = ['refs/heads', 'refs/remotes', 'refs/tags'];

/** git's own answer: every keeping ref and the object it names, peeled all the way. */
function gitOracle(repo: string): Array<{ name: string; commit: string }> {
  const names = sh(repo, 'for-each-ref', '--format=%(refname)', ...KEEPING)
    .split('\n')
    .filter(Boolean);
  return names.map((name) => ({ name, commit: sh(repo, 'rev-parse', '--verify', `${name}^{}`).trim() }));
}

/** A repository with refs of every plain shape: nested, remote, a remote HEAD, tags of all kinds, packed and loose. */
function buildRefsWorld(dir: string, objectFormat?: string): string {
  const repo = path.join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  sh(dir, 'init', '-q', ...(objectFormat ? [`--object-format=${objectFormat}`] : []), repo);
  commitFile(repo, 'a.txt', 'a\n');
  sh(repo, 'branch', 'agent/deep/one');
  sh(repo, 'branch', 'gone-later');
  sh(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  sh(repo, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
  sh(repo, 'tag', '-a', '-m', 'release', 'v1');
  sh(repo, 'tag', '-a', '-m', 'nested', 'v1-nested', 'v1');
  sh(repo, 'tag', 'light');
  sh(repo, 'tag', 'tree-only', 'HEAD^{tree}');
  sh(repo, 'update-ref', 'refs/notes/commits', 'HEAD');
  sh(repo, 'pack-refs', '--all');
  // After packing: a branch moved on loose (the loose file wins), new loose refs, a deleted packed one.
  commitFile(repo, 'b.txt', 'b\n');
  sh(repo, 'branch', 'agent/deep/two');
  sh(repo, 'update-ref', 'refs/remotes/upstream/feature', 'HEAD');
  sh(repo, 'branch', '-D', 'gone-later');
  return repo;
}

describe('keeping refs read from the repository files', () => {
  it.each([
    ['sha1', undefined],
    ['sha256', 'sha256'],
  ])('answers what git answers, packed and loose together (%s)', (_, format) => {
    const repo = buildRefsWorld(tempDir(), format);
    const read = readKeepingRefFiles(path.join(repo, '.git'));
    expect(read).not.toBeNull();
    expect(read).toEqual(gitOracle(repo));
    expect(read?.map((ref) => ref.name)).toContain('refs/remotes/origin/HEAD');
    expect(read?.map((ref) => ref.name)).not.toContain('refs/heads/gone-later');
  });

  it('passes over a ref being written (its .lock) as git does', () => {
    const repo = buildRefsWorld(tempDir());
    writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'main.lock'), `${'0'.repeat(40)}\n`);
    expect(readKeepingRefFiles(path.join(repo, '.git'))).toEqual(gitOracle(repo));
  });

  const unsure: Array<[string, (repo: string) => void]> = [
    ['a loose tag, which may name a tag object', (repo) => sh(repo, 'tag', '-a', '-m', 'loose', 'v2')],
    ['a reftable folder', (repo) => mkdirSync(path.join(repo, '.git', 'reftable'))],
    [
      'a symbolic ref to nowhere',
      (repo) => sh(repo, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/missing'),
    ],
    [
      'text that is no object id',
      (repo) => writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'main'), 'not an id\n'),
    ],
    ['a ref that is a link', (repo) => symlinkSync('main', path.join(repo, '.git', 'refs', 'heads', 'linked'))],
    [
      'a name git refuses',
      (repo) =>
        writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'two..dots'), `${sh(repo, 'rev-parse', 'HEAD')}`),
    ],
    [
      'a name outside printable ASCII',
      (repo) =>
        writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'caf\u00e9'), `${sh(repo, 'rev-parse', 'HEAD')}`),
    ],
    [
      'packed tags with no record of their peel',
      (repo) => {
        const file = path.join(repo, '.git', 'packed-refs');
        const lines = readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => !line.startsWith('^') && !line.startsWith('#'));
        writeFileSync(file, `# pack-refs with: sorted \n${lines.join('\n')}`);
      },
    ],
    [
      'a refs folder that is a link',
      (repo) => {
        const remotes = path.join(repo, '.git', 'refs', 'remotes');
        renameSync(remotes, `${remotes}-elsewhere`);
        symlinkSync('remotes-elsewhere', remotes);
      },
    ],
    [
      'a refs/heads that is a file (the layout reftable leaves for older gits)',
      (repo) => {
        const heads = path.join(repo, '.git', 'refs', 'heads');
        rmSync(heads, { recursive: true });
        writeFileSync(heads, 'this repository uses the reftable format\n');
      },
    ],
  ];

  it.each(unsure)("leaves %s to git, and the listing is still git's", async (_, change) => {
    const repo = buildRefsWorld(tempDir());
    change(repo);
    const commonDir = path.join(repo, '.git');
    expect(readKeepingRefFiles(commonDir)).toBeNull();
    let fromGit: unknown;
    try {
      fromGit = await listKeepingRefsFromGit(repo);
    } catch (err) {
      fromGit = err;
    }
    if (fromGit instanceof Error) await expect(listKeepingRefs(repo, commonDir)).rejects.toThrow();
    else expect(await listKeepingRefs(repo, commonDir)).toEqual(fromGit);
  });

  it('a repository without packed-refs or refs at all reads as git lists it', () => {
    const repo = makeRepo(path.join(tempDir(), 'plain'));
    expect(readKeepingRefFiles(path.join(repo, '.git'))).toEqual(gitOracle(repo));
  });
});
