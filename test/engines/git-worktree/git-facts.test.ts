import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listKeepingRefs, readAncestry } from '../../../src/engines/git-worktree/ancestry.js';
import { readKeepingRefFiles } from '../../../src/engines/git-worktree/ref-files.js';
import { examineWorktree, examineWorktrees, type GitFacts } from '../../../src/engines/git-worktree/evidence.js';
import { otherRefs } from '../../../src/engines/git-worktree/judging.js';
import { parseIndexFacts, readIndexFacts } from '../../../src/engines/git-worktree/index-gitlinks.js';
import { readWorktreeLink, type WorktreeLink } from '../../../src/engines/git-worktree/link.js';
import { readWorktreeStatus, readWorktreeStatuses } from '../../../src/engines/git-worktree/status.js';
import { findSubmodule, indexFromGit, readWorktreeIndex } from '../../../src/engines/git-worktree/submodules.js';
import { put } from '../../helpers/fs-fixtures.js';
import { gitWrapper } from '../../helpers/git-wrapper.js';
import { tempDir } from '../../helpers/temp.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

/** What git answers for one worktree alone: the refs holding HEAD, and the commits only its branch holds. */
function gitAlone(worktree: string): { containing: string[]; onlyHere: number | null } {
  const head = sh(worktree, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}').trim();
  const containing = sh(
    worktree,
    'for-each-ref',
    '--contains',
    head,
    '--format=%(refname)',
    'refs/heads',
    'refs/remotes',
    'refs/tags',
  )
    .split('\n')
    .filter(Boolean);
  const branch = sh(worktree, 'branch', '--show-current').trim();
  const exclude = branch ? [`--exclude=${branch}`] : [];
  const onlyHere = Number(
    sh(worktree, 'rev-list', '--count', head, '--not', ...exclude, '--branches', '--remotes', '--tags').trim(),
  );
  return { containing, onlyHere };
}

function facts(evidence: Awaited<ReturnType<typeof examineWorktree>>): GitFacts {
  if (evidence.state !== 'linked' || !evidence.git)
    throw new Error(`no git facts for ${evidence.path}: ${JSON.stringify(evidence)}`);
  return evidence.git;
}

function linkOf(worktree: string): WorktreeLink {
  const linked = readWorktreeLink(worktree);
  if (!linked.ok) throw new Error(linked.detail);
  return linked.link;
}

/** One repository with a worktree of every shape of ancestry, and a second repository beside it. */
function buildAncestryWorld(dir: string): { shapes: Record<string, string>; unborn: string } {
  const repo = makeRepo(path.join(dir, 'repo'));
  const at = (name: string) => path.join(dir, 'wt', name);
  const shapes: Record<string, string> = {};
  const add = (name: string, branch = `agent/${name}`) => (shapes[name] = addWorktree(repo, at(name), branch));

  add('fresh');
  add('merged');
  commitFile(at('merged'), 'merged.txt', 'merged\n');
  sh(repo, 'merge', '-q', '--no-ff', '-m', 'merge agent/merged', 'agent/merged');
  add('unique');
  commitFile(at('unique'), 'one.txt', '1\n');
  commitFile(at('unique'), 'two.txt', '2\n');
  shapes.stacked = at('stacked');
  sh(repo, 'worktree', 'add', '-q', '-b', 'agent/stacked', at('stacked'), 'agent/unique');
  commitFile(at('stacked'), 'three.txt', '3\n');
  shapes.detached = at('detached');
  sh(repo, 'worktree', 'add', '-q', '--detach', at('detached'), 'agent/unique');
  commitFile(at('detached'), 'four.txt', '4\n');
  add('tagged');
  const tagged = commitFile(at('tagged'), 'tagged.txt', 't\n');
  sh(repo, 'tag', '-a', '-m', 'release', 'v1', tagged);
  sh(repo, 'tag', 'tree-only', 'HEAD^{tree}');
  add('pushed');
  const pushed = commitFile(at('pushed'), 'pushed.txt', 'p\n');
  sh(repo, 'update-ref', 'refs/remotes/origin/agent/pushed', pushed);
  add('twin', 'agent/twin');
  sh(repo, 'branch', '-q', 'agent/twin-copy', 'agent/twin');
  commitFile(at('twin'), 'twin.txt', 'w\n');
  sh(repo, 'branch', '-q', '-f', 'agent/twin-copy', 'agent/twin');

  const other = makeRepo(path.join(dir, 'other'));
  shapes.elsewhere = addWorktree(other, at('elsewhere'), 'agent/elsewhere');
  const unborn = addWorktree(repo, at('unborn'), 'agent/unborn');
  sh(unborn, 'checkout', '-q', '--orphan', 'agent/unborn-orphan');
  return { shapes, unborn };
}

describe('worktree engine: git facts for many worktrees at once', () => {
  // Loose, the world's annotated tags send the ref listing to git; packed, its files are read.
  it.each(['loose', 'packed'])(
    'answers for every worktree of a batch what git answers for that worktree alone (refs %s)',
    async (refs) => {
      const dir = tempDir();
      const { shapes, unborn } = buildAncestryWorld(dir);
      const commonDir = path.join(dir, 'repo', '.git');
      if (refs === 'packed') sh(path.join(dir, 'repo'), 'pack-refs', '--all');
      expect(readKeepingRefFiles(commonDir) === null).toBe(refs === 'loose');
      const names = Object.keys(shapes);
      const batch = await examineWorktrees([...names.map((name) => shapes[name] as string), unborn]);

      for (const [k, name] of names.entries()) {
        const worktree = shapes[name] as string;
        const together = facts(batch[k] as Awaited<ReturnType<typeof examineWorktree>>);
        const alone = facts(await examineWorktree(worktree));
        const oracle = gitAlone(worktree);
        const own = together.head.branch;
        const oracleOthers = oracle.containing.filter((ref) => ref !== own);
        expect(together.head.commit, name).toBe(sh(worktree, 'rev-parse', 'HEAD').trim());
        expect(otherRefs(together).length > 0, `${name} held by another ref`).toBe(oracleOthers.length > 0);
        expect(otherRefs(alone).length > 0, `${name} held by another ref, asked alone`).toBe(oracleOthers.length > 0);
        for (const ref of otherRefs(together)) expect(oracleOthers, name).toContain(ref);
        if (oracleOthers.length === 0) {
          expect(together.commitsOnlyHere, name).toBe(oracle.onlyHere);
          expect(alone.commitsOnlyHere, name).toBe(oracle.onlyHere);
        }
      }

      const byName = (name: string) => facts(batch[names.indexOf(name)] as Awaited<ReturnType<typeof examineWorktree>>);
      // main moved on (a merge) and every later branch started from it: both are held from outside the graph.
      expect(otherRefs(byName('fresh'))).toContain('refs/heads/main');
      expect(otherRefs(byName('merged'))).toContain('refs/heads/main');
      expect(otherRefs(byName('unique'))).toEqual(['refs/heads/agent/stacked']);
      expect(byName('stacked').commitsOnlyHere).toBe(1);
      expect(byName('detached')).toMatchObject({ containingRefs: [], commitsOnlyHere: 1, head: { branch: null } });
      expect(otherRefs(byName('tagged'))).toEqual(['refs/tags/v1']);
      expect(otherRefs(byName('pushed'))).toEqual(['refs/remotes/origin/agent/pushed']);
      expect(otherRefs(byName('twin'))).toEqual(['refs/heads/agent/twin-copy']);
      expect(otherRefs(byName('elsewhere'))).toEqual(['refs/heads/main']);
      expect(facts(batch[names.length] as Awaited<ReturnType<typeof examineWorktree>>)).toMatchObject({
        head: { commit: null, branch: 'refs/heads/agent/unborn-orphan' },
        containingRefs: [],
        commitsOnlyHere: null,
      });
    },
  );

  it('a HEAD that moved between the status and the ref listing is an error for that worktree alone', async () => {
    const dir = tempDir();
    const repo = makeRepo(path.join(dir, 'repo'));
    const moving = addWorktree(repo, path.join(dir, 'moving'), 'agent/moving');
    const still = addWorktree(repo, path.join(dir, 'still'), 'agent/still');
    const before = sh(moving, 'rev-parse', 'HEAD').trim();
    commitFile(moving, 'later.txt', 'later\n');

    const answers = await readAncestry(
      moving,
      [
        { path: moving, commit: before, branch: 'refs/heads/agent/moving' },
        { path: still, commit: before, branch: 'refs/heads/agent/still' },
      ],
      await listKeepingRefs(moving, path.join(repo, '.git')),
    );
    expect(answers[0]).toBeInstanceOf(Error);
    expect((answers[0] as Error).message).toContain(`HEAD of ${moving} moved while it was read`);
    expect(answers[1]).toEqual({
      containingRefs: expect.arrayContaining(['refs/heads/agent/still', 'refs/heads/main']),
      commitsOnlyHere: null,
      worktreeRefs: [],
    });
  });
});

describe('worktree engine: gitlinks read from the index without git', () => {
  function worktreeWithGitlink(dir: string, objectFormat?: string): { worktree: string; index: string } {
    const repo = path.join(dir, 'repo');
    put(path.join(repo, 'README.md'), 'x\n');
    sh(dir, 'init', '-q', ...(objectFormat ? [`--object-format=${objectFormat}`] : []), repo);
    sh(repo, 'add', '.');
    sh(repo, 'commit', '-q', '-m', 'first');
    const worktree = addWorktree(repo, path.join(dir, 'wt'), 'agent/linked');
    const head = sh(worktree, 'rev-parse', 'HEAD').trim();
    // A gitlink staged with no .gitmodules and no modules/ folder: only the index tells.
    sh(worktree, 'update-index', '--add', '--cacheinfo', `160000,${head},vendor/lib`);
    return { worktree, index: path.join(sh(worktree, 'rev-parse', '--absolute-git-dir').trim(), 'index') };
  }

  it('finds the gitlink in index versions 2, 3 and 4 and in a SHA-256 repository, as git ls-files does', async () => {
    const dir = tempDir();
    const { worktree, index } = worktreeWithGitlink(path.join(dir, 'sha1'));
    const versionOf = () => readFileSync(index).readUInt32BE(4);

    expect(versionOf()).toBe(2);
    expect(await readIndexFacts(index)).toEqual({ known: true, gitlinks: ['vendor/lib'], flagged: [] });
    put(path.join(worktree, 'later.txt'), 'later\n');
    sh(worktree, 'add', '--intent-to-add', 'later.txt');
    expect(versionOf()).toBe(3);
    expect(await readIndexFacts(index)).toEqual({ known: true, gitlinks: ['vendor/lib'], flagged: [] });
    sh(worktree, 'update-index', '--index-version', '4');
    expect(versionOf()).toBe(4);
    expect(await readIndexFacts(index)).toEqual({ known: true, gitlinks: ['vendor/lib'], flagged: [] });
    expect(await indexFromGit(worktree)).toEqual({ known: true, gitlinks: ['vendor/lib'], flagged: [] });
    expect(await findSubmodule(linkOf(worktree), await readWorktreeIndex(linkOf(worktree)))).toBe(
      'the index holds the gitlink vendor/lib',
    );

    sh(worktree, 'rm', '-q', '--cached', 'vendor/lib');
    expect(await readIndexFacts(index)).toEqual({ known: true, gitlinks: [], flagged: [] });
    expect(await findSubmodule(linkOf(worktree), await readWorktreeIndex(linkOf(worktree)))).toBeNull();

    const sha256 = worktreeWithGitlink(path.join(dir, 'sha256'), 'sha256');
    expect(await readIndexFacts(sha256.index)).toEqual({ known: true, gitlinks: ['vendor/lib'], flagged: [] });
  });

  it('hands git every index it does not fully understand, and the gitlink is still found', async () => {
    const dir = tempDir();
    const { worktree, index } = worktreeWithGitlink(dir);
    const data = readFileSync(index);

    const torn = parseIndexFacts(data.subarray(0, data.length - 7));
    expect(torn).toMatchObject({ known: false, reason: expect.stringContaining('checksum') });
    const flipped = Buffer.from(data);
    flipped[20] = (flipped[20] as number) ^ 0xff;
    expect(parseIndexFacts(flipped)).toMatchObject({ known: false });
    expect(parseIndexFacts(Buffer.from('not an index at all, just text'))).toMatchObject({
      known: false,
      reason: 'no index signature',
    });

    const saved = path.join(dir, 'index.saved');
    copyFileSync(index, saved);
    writeFileSync(index, data.subarray(0, 40));
    expect(await readIndexFacts(index)).toMatchObject({ known: false });
    copyFileSync(saved, index);

    sh(worktree, 'update-index', '--split-index');
    expect(await readIndexFacts(index)).toMatchObject({
      known: false,
      reason: expect.stringContaining('split index'),
    });
    expect(await findSubmodule(linkOf(worktree), await readWorktreeIndex(linkOf(worktree)))).toBe(
      'the index holds the gitlink vendor/lib',
    );
    sh(worktree, 'update-index', '--no-split-index');

    sh(worktree, 'sparse-checkout', 'init', '--cone', '--sparse-index');
    expect(await readIndexFacts(index)).toMatchObject({ known: false, reason: expect.stringContaining('sparse') });
    expect(await findSubmodule(linkOf(worktree), await readWorktreeIndex(linkOf(worktree)))).toBe(
      'the index holds the gitlink vendor/lib',
    );
  });
});

describe('worktree engine: statuses started by git a batch at a time', () => {
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  function threeWorktrees(dir: string): string[] {
    const repo = makeRepo(path.join(dir, 'repo'));
    const trees = ['one', 'two', 'three'].map((name) => addWorktree(repo, path.join(dir, name), `agent/${name}`));
    put(path.join(trees[2] as string, 'NOTES.md'), 'half-written plan\n');
    return trees;
  }

  it('answers each worktree of a batch as git status answers it alone, and a failing one fails alone', async () => {
    const dir = tempDir();
    const trees = threeWorktrees(dir);
    const batch = await readWorktreeStatuses(trees, 1);
    for (const [k, tree] of trees.entries()) expect(batch[k]).toEqual(await readWorktreeStatus(tree));
    expect(batch[2]).toMatchObject({ changes: { untracked: 1, sample: ['NOTES.md'] } });

    // The middle one's index is corrupt: git status fails there, and for-each-repo stops.
    const index = path.join(sh(trees[1] as string, 'rev-parse', '--absolute-git-dir').trim(), 'index');
    writeFileSync(index, 'DIRC garbage');
    const broken = await readWorktreeStatuses(trees, 1);
    expect(broken[0]).toEqual(batch[0]);
    expect(broken[1]).toBeInstanceOf(Error);
    expect((broken[1] as Error).message).toMatch(/git (--work-tree=. )?status .* failed/);
    expect(broken[2]).toEqual(batch[2]);
  });

  it("turns off git's preload threads only where the batches at once are as many as the CPUs", async () => {
    const dir = tempDir();
    const trees = threeWorktrees(dir);
    const log = path.join(dir, 'calls.log');
    const bin = gitWrapper(dir, `echo "$*" >> '${log}'`);
    process.env.PATH = `${bin}:${savedPath}`;
    const batchesIn = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.includes('for-each-repo'));

    const busy = await readWorktreeStatuses(trees, 2, 2);
    expect(batchesIn()).toHaveLength(2);
    for (const call of batchesIn()) expect(call).toContain('-c core.preloadIndex=false for-each-repo');
    writeFileSync(log, '');
    const roomy = await readWorktreeStatuses(trees, 2, 8);
    expect(batchesIn()).toHaveLength(2);
    for (const call of batchesIn()) expect(call).not.toContain('preloadIndex');
    expect(roomy).toEqual(busy);
    for (const [k, tree] of trees.entries()) expect(busy[k]).toEqual(await readWorktreeStatus(tree));
  });

  it('a git that cannot be started is an error for each worktree, never a rejection of the whole batch', async () => {
    const dir = tempDir();
    const trees = threeWorktrees(dir);
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    // Not executable: spawning it fails (EACCES) for the batch and for each worktree alone.
    writeFileSync(path.join(bin, 'git'), '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    process.env.PATH = bin;

    const answers = await readWorktreeStatuses(trees, 1);
    expect(answers).toHaveLength(3);
    for (const answer of answers) expect(answer).toBeInstanceOf(Error);
    const facts = await examineWorktrees(trees);
    for (const evidence of facts)
      expect(evidence).toMatchObject({ state: 'linked', git: null, gitError: expect.stringContaining('git') });
  });

  it('never trusts the answer a failed batch was cut short in: that worktree is asked again alone', async () => {
    const dir = tempDir();
    const trees = threeWorktrees(dir);
    // A for-each-repo that answers the first two, then dies partway through the third's answer.
    const bin = gitWrapper(
      dir,
      [
        'case " $* " in',
        `  *" for-each-repo "*) for w in '${trees[0]}' '${trees[1]}'; do "$REAL_GIT" -C "$w" status --porcelain=v2 --branch -z --untracked-files=all; done`,
        `    printf '# branch.oid %s\\0# branch.head agent/three\\0' "$("$REAL_GIT" -C '${trees[2]}' rev-parse HEAD)"; exit 128;;`,
        'esac',
      ].join('\n'),
    );
    process.env.PATH = `${bin}:${savedPath}`;

    const answers = await readWorktreeStatuses(trees, 1);
    expect(answers[0]).toMatchObject({ changes: { changed: 0, untracked: 0 } });
    expect(answers[2]).toMatchObject({
      changes: { untracked: 1, sample: ['NOTES.md'] },
      head: { branch: 'refs/heads/agent/three' },
    });
  });
});
