import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitProcessesInside, readGitProcess } from '../../../src/safety/processes/git-processes.js';
import type { ProcessView } from '../../../src/safety/processes/process-view.js';
import { descendantsOf, stateOf } from '../../helpers/container-root.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

/** A git process as the scan saw it a moment ago: it names `gitDir` and holds nothing. */
function seenAsGit(gitDir: string): ProcessView {
  return {
    command: 'git',
    state: 'S',
    start: null,
    uid: 0,
    exe: '/usr/bin/git',
    argv: ['git', '--git-dir', gitDir, 'repack', '-a', '-d'],
    vars: {},
    cwd: '/',
    paths: [],
    identities: [],
    openDeleted: [],
    mountNamespace: null,
  };
}

describe('a git process the scan saw, looked at again', () => {
  it('is at work where its --git-dir leads, stopped or not', async () => {
    const repo = path.join(tempDir('aj-git-at-work-'), 'repo.git');
    mkdirSync(repo);
    const git = spawnLiving('sleep', ['600']);
    git.kill('SIGSTOP');
    await waitFor(() => stateOf(git.pid as number) === 'T');

    const seen = readGitProcess(`/proc/${git.pid}`, git.pid as number, seenAsGit(repo));

    expect(seen?.unresolved).toBeUndefined();
    expect(gitProcessesInside(seen ? [seen] : [], repo)).toEqual([git.pid]);
  });

  it('works nowhere once it has ended since the scan, reaped or a zombie: its places are gone, not unknown', async () => {
    const repo = path.join(tempDir('aj-git-at-work-'), 'repo.git');
    mkdirSync(repo);
    const reaped = spawn('true');
    await new Promise((resolve) => reaped.once('exit', resolve));
    // A parent that never reaps: its child stays a zombie.
    const parent = spawnLiving('sh', ['-c', 'true & exec sleep 600']);
    let zombie = 0;
    await waitFor(() => {
      zombie = descendantsOf(parent.pid as number).find((pid) => stateOf(pid) === 'Z') ?? 0;
      return zombie > 0;
    });

    for (const pid of [reaped.pid as number, zombie]) {
      expect(readGitProcess(`/proc/${pid}`, pid, seenAsGit(repo)), `process ${pid}`).toBeNull();
    }
  });
});
