import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitWrapper } from '../../helpers/git-wrapper.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { tempDir } from '../../helpers/temp.js';
import { addKiloWorktree, kiloPaths, makeRepo, makeSnapshot, projectIdOf, removeKiloWorktree } from './fixtures.js';
import { FOREIGN_ENV } from './scene.js';

/** The most `rev-parse --show-toplevel` runs the recording git saw at once. */
function mostAtOnce(log: string): number {
  const events = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([kind, ns]) => ({ start: kind === 'start', ns: BigInt(ns as string) }))
    .sort((a, b) => (a.ns === b.ns ? Number(a.start) - Number(b.start) : a.ns < b.ns ? -1 : 1));
  let now = 0;
  let most = 0;
  for (const event of events) {
    now += event.start ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

describe('kilo: owner repositories of several data folders', () => {
  it('reads them side by side, and judges each repository as it would alone', async () => {
    const root = tempDir('aj-kilo-owners-');
    const homes: string[] = [];
    const snapshots: string[] = [];
    const kept: string[] = [];
    for (const name of ['ann', 'bob', 'cy']) {
      const home = path.join(root, name);
      const paths = kiloPaths(home);
      const repo = makeRepo(path.join(home, 'code', 'app'));
      const projectId = projectIdOf(repo);
      const gone = addKiloWorktree(repo, 'gone');
      snapshots.push(makeSnapshot(paths.data, projectId, gone));
      removeKiloWorktree(repo, gone);
      kept.push(makeSnapshot(paths.data, projectId, addKiloWorktree(repo, 'live')));
      homes.push(home);
    }
    // A git that takes its time to find a repository's root, and notes when each such run starts and ends.
    const log = path.join(root, 'toplevel.log');
    const bin = gitWrapper(
      root,
      `case " $* " in *" --show-toplevel "*)
  echo "start $(date +%s%N)" >> '${log}'; sleep 0.4
  "$REAL_GIT" "$@"; code=$?
  echo "end $(date +%s%N)" >> '${log}'; exit $code;;
esac`,
    );

    const { report, exitCode } = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () =>
      pass({
        dir: tempDir('aj-kilo-owners-run-'),
        config: { homes, minAge: '0s' },
        only: ['kilo'],
        reportOnly: true,
        env: FOREIGN_ENV,
      }),
    );

    expect(exitCode).toBe(0);
    for (const gitdir of snapshots) expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'would-delete' });
    for (const gitdir of kept) expect(itemAt(report, gitdir).verdict).toBe('kept');
    // One read of each owner repository, and the three of them at once rather than one after another.
    expect(readFileSync(log, 'utf8').match(/^start /gm)).toHaveLength(3);
    expect(mostAtOnce(log)).toBeGreaterThanOrEqual(2);
  });
});
