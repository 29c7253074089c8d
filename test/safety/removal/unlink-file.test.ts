import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RemovalStopped } from '../../../src/model/errors.js';
import { gitProcessesInside } from '../../../src/safety/processes/git-processes.js';
import { scanProcesses } from '../../../src/safety/processes/processes.js';
import { takeLastProof } from '../../../src/safety/removal/last-proof.js';
import { unlinkProvenFile } from '../../../src/safety/removal/unlink-file.js';
import { evidenceMoment } from '../../helpers/execute.js';
import { daysAgo } from '../../helpers/fs-fixtures.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/** `<root>/repo/objects/pack/tmp_pack_AbC123`, three days old, and the moment a pass began after it. */
async function garbage() {
  const root = tempDir('aj-unlink-file-');
  const pack = path.join(root, 'repo', 'objects', 'pack');
  mkdirSync(pack, { recursive: true });
  const file = path.join(pack, 'tmp_pack_AbC123');
  writeFileSync(file, 'half a pack');
  utimesSync(file, daysAgo(3), daysAgo(3));
  const { dev, ino } = lstatSync(file);
  const sinceMs = await evidenceMoment();
  return { root, pack, file, expected: { dev, ino, sinceMs } };
}

function stopOf(work: () => void): RemovalStopped {
  try {
    work();
  } catch (err) {
    if (err instanceof RemovalStopped) return err;
    throw err;
  }
  throw new Error('it went ahead');
}

const living: ChildProcess[] = [];
afterEach(() => {
  for (const child of living.splice(0)) child.kill('SIGKILL');
});

describe('the single-file removal step (unlinkProvenFile)', () => {
  it('unlinks the very file judged, and nothing beside it', async () => {
    const g = await garbage();
    writeFileSync(path.join(g.pack, 'pack-1.pack'), 'a real pack');
    unlinkProvenFile(g.root, g.file, g.expected, null);
    expect(existsSync(g.file)).toBe(false);
    expect(readFileSync(path.join(g.pack, 'pack-1.pack'), 'utf8')).toBe('a real pack');
  });

  it('stops at another inode under the same name', async () => {
    const g = await garbage();
    writeFileSync(`${g.file}.new`, 'someone else');
    renameSync(`${g.file}.new`, g.file);
    utimesSync(g.file, daysAgo(3), daysAgo(3));
    const stop = stopOf(() => unlinkProvenFile(g.root, g.file, { ...g.expected, sinceMs: Date.now() + 60_000 }, null));
    expect(stop.reason).toBe('changed-during-inspection');
    expect(stop.message).toContain('another inode');
    expect(readFileSync(g.file, 'utf8')).toBe('someone else');
  });

  it('stops at a file changed (ctime) after the pass began, whatever its mtime says', async () => {
    const g = await garbage();
    appendFileSync(g.file, ' and more');
    utimesSync(g.file, daysAgo(3), daysAgo(3));
    const stop = stopOf(() => unlinkProvenFile(g.root, g.file, g.expected, null));
    expect(stop.message).toMatch(/changed at .* \(ctime\)/);
    expect(existsSync(g.file)).toBe(true);
  });

  it('stops where a folder on the way was swapped for a link, and leaves what the link leads to', async () => {
    const g = await garbage();
    const elsewhere = path.join(tempDir('aj-elsewhere-'), 'pack');
    mkdirSync(elsewhere);
    // The same file, reached through the link: same inode, so only the walk down can tell.
    renameSync(g.file, path.join(elsewhere, 'tmp_pack_AbC123'));
    renameSync(g.pack, `${g.pack}.moved`);
    symlinkSync(elsewhere, g.pack);
    const stop = stopOf(() => unlinkProvenFile(g.root, g.file, { ...g.expected, sinceMs: Date.now() + 60_000 }, null));
    expect(stop.reason).toBe('changed-during-inspection');
    expect(stop.message).toContain('no longer a real folder');
    expect(existsSync(path.join(elsewhere, 'tmp_pack_AbC123'))).toBe(true);
  });

  it('stops at a name that is a link now, and at a file outside its root', async () => {
    const g = await garbage();
    const target = path.join(tempDir('aj-target-'), 'precious');
    writeFileSync(target, 'precious');
    renameSync(g.file, `${g.file}.away`);
    symlinkSync(target, g.file);
    expect(stopOf(() => unlinkProvenFile(g.root, g.file, g.expected, null)).message).toContain(
      'no longer a regular file',
    );
    expect(readFileSync(target, 'utf8')).toBe('precious');
    expect(stopOf(() => unlinkProvenFile(g.pack, target, g.expected, null)).message).toContain('is not inside');
  });
});

describe('the last proof of a single file', () => {
  const subjectOf = (file: string, extra: object = {}) => ({
    tree: file,
    judgedAt: file,
    renamed: false,
    ownerUid: null,
    ...extra,
  });

  it('lets an unchanged old file go, and keeps one written since minAge (its mtime)', async () => {
    const g = await garbage();
    expect(
      takeLastProof(subjectOf(g.file, { writtenBeforeMs: Date.now() - 3600_000 }), g.expected.sinceMs, scanProcesses())
        .stop,
    ).toBeNull();
    const proof = takeLastProof(subjectOf(g.file, { writtenBeforeMs: daysAgo(4).getTime() }), g.expected.sinceMs, null);
    expect(proof.stop?.reason).toBe('too-recent');
  });

  it('keeps a file while a git process works in its repository, and only that repository', async () => {
    const g = await garbage();
    const repo = path.join(g.root, 'repo');
    const other = path.join(g.root, 'other');
    mkdirSync(other);
    execFileSync('git', ['init', '-q', '--bare', repo]);
    const git = spawn('git', ['--git-dir', repo, 'cat-file', '--batch'], { stdio: ['pipe', 'ignore', 'ignore'] });
    living.push(git);
    await waitFor(() => gitProcessesInside(scanProcesses().gitProcesses, repo).includes(git.pid as number));

    const table = scanProcesses();
    expect(gitProcessesInside(table.gitProcesses, other)).toEqual([]);
    const proof = takeLastProof(subjectOf(g.file, { repository: repo }), g.expected.sinceMs, table);
    expect(proof.stop?.reason).toBe('in-use');
    expect(proof.stop?.detail).toContain(`git process ${git.pid} got to work in the repository ${repo}`);
    expect(takeLastProof(subjectOf(g.file, { repository: other }), g.expected.sinceMs, table).stop).toBeNull();
  });

  it('a process that is not git, with its working directory in the repository, does not count as git', async () => {
    const g = await garbage();
    const repo = path.join(g.root, 'repo');
    const sleeper = spawn('sleep', ['600'], { cwd: repo, stdio: 'ignore' });
    living.push(sleeper);
    await waitFor(() => existsSync(`/proc/${sleeper.pid}/cwd`));
    expect(gitProcessesInside(scanProcesses().gitProcesses, repo)).toEqual([]);
  });
});
