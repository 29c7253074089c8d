import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GIT_CONCURRENCY } from '../../../src/git/settings.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { sh } from '../../helpers/git-fixtures.js';
import { buildSetsWorld } from '../../providers/worktrees/scenario.js';

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const savedPath = process.env.PATH;
const savedLog = process.env.FAKE_GIT_LOG;
afterEach(() => {
  process.env.PATH = savedPath;
  if (savedLog === undefined) delete process.env.FAKE_GIT_LOG;
  else process.env.FAKE_GIT_LOG = savedLog;
});

/** A `git` first on PATH that records each call (pid, times, GIT_OPTIONAL_LOCKS, args) and runs the real one; status is slowed so overlap shows. */
function installRecordingGit(dir: string): string {
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'git-calls.log');
  execFileSync('mkdir', ['-p', bin]);
  writeFileSync(
    path.join(bin, 'git'),
    [
      '#!/bin/sh',
      `printf 'start\\t%s\\t%s\\t%s\\t%s\\n' "$$" "$(date +%s%N)" "\${GIT_OPTIONAL_LOCKS-unset}" "$*" >> "$FAKE_GIT_LOG"`,
      'case " $* " in *" status "*) sleep 0.15;; esac',
      `${realGit} "$@"`,
      'rc=$?',
      `printf 'end\\t%s\\t%s\\n' "$$" "$(date +%s%N)" >> "$FAKE_GIT_LOG"`,
      'exit $rc',
      '',
    ].join('\n'),
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}:${savedPath}`;
  process.env.FAKE_GIT_LOG = log;
  writeFileSync(log, '');
  return log;
}

interface Call {
  pid: string;
  start: number;
  end: number;
  locks: string;
  args: string;
  command: string;
}

function readCalls(log: string): Call[] {
  const calls = new Map<string, Call>();
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const [kind, pid, time, locks, args] = line.split('\t') as [string, string, string, string?, string?];
    if (kind === 'start')
      calls.set(pid, {
        pid,
        start: Number(time),
        end: Infinity,
        locks: locks ?? '',
        args: args ?? '',
        command: subcommand(args ?? ''),
      });
    else if (calls.has(pid)) (calls.get(pid) as Call).end = Number(time);
  }
  return [...calls.values()];
}

/** The git subcommand, past the `-c key=value` options every call carries. */
function subcommand(args: string): string {
  const words = args.split(' ');
  for (let i = 0; i < words.length; i += 1) {
    if (words[i] === '-c') i += 1;
    else if (!words[i]?.startsWith('-')) return words[i] as string;
  }
  return '';
}

function mostAtOnce(calls: Call[]): number {
  const edges = calls
    .flatMap(
      (call) =>
        [
          [call.start, 1],
          [call.end, -1],
        ] as Array<[number, number]>,
    )
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) {
    now += step;
    most = Math.max(most, now);
  }
  return most;
}

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('worktrees: git is only ever read without locks, and removal is git worktree remove without --force', () => {
  it('runs every git call with GIT_OPTIONAL_LOCKS=0, status concurrently within the bound, and never prune, --force or a branch delete', async () => {
    const dir = tempDir();
    const w = buildSetsWorld(path.join(dir, 'world'));
    const removable = ['agent-done', 'in-use', 'merged-clean', 'merged-later', 'pushed', 'tagged'];
    // A HEAD that is another ref's tip needs no walk of the graph to be known held.
    const heldByTip = removable.filter((name) => {
      const head = sh(w.at(name), 'rev-parse', 'HEAD').trim();
      const own = sh(w.at(name), 'rev-parse', '--symbolic-full-name', 'HEAD').trim();
      return sh(
        w.repo,
        'for-each-ref',
        '--points-at',
        head,
        '--format=%(refname)',
        'refs/heads',
        'refs/remotes',
        'refs/tags',
      )
        .split('\n')
        .some((ref) => ref !== '' && ref !== own);
    });
    expect(heldByTip.length).toBeGreaterThan(0);
    expect(heldByTip.length).toBeLessThan(removable.length);
    const log = installRecordingGit(dir);

    const { report } = await pass({ dir, config: w.config, only: ['worktrees'] });

    expect(itemAt(report, w.at('merged-clean')).verdict).toBe('deleted');
    const calls = readCalls(log);
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.filter((call) => call.locks !== '0')).toEqual([]);
    // git starts the statuses, a batch of worktrees per for-each-repo, the batches at once within the bound.
    const statuses = calls.filter((call) => call.command === 'status' || call.command === 'for-each-repo');
    const removes = calls.filter((call) => call.command === 'worktree');
    expect(calls.filter((call) => call.command === 'status')).toEqual([]);
    expect(statuses.length).toBe(GIT_CONCURRENCY + removes.length);
    for (const call of statuses) expect(call.args).toMatch(/ status .*--untracked-files=all/);
    const overlap = mostAtOnce(statuses);
    expect(overlap).toBeGreaterThan(1);
    expect(overlap).toBeLessThanOrEqual(GIT_CONCURRENCY);
    expect(removes.map((call) => call.args.split(' ').slice(-3).join(' ')).sort()).toEqual(
      removable.map((name) => `worktree remove ${w.at(name)}`).sort(),
    );
    // Refs and commits once per repository (the world has one), and once more for each removal's
    // last-moment look, less the walks of a HEAD another ref's tip holds. Nothing per worktree
    // besides its status.
    expect(calls.filter((call) => ['rev-parse', 'symbolic-ref', 'ls-files'].includes(call.command))).toEqual([]);
    expect(calls.filter((call) => call.command === 'for-each-ref' && !call.args.includes('--contains')).length).toBe(
      1 + removes.length,
    );
    expect(calls.filter((call) => call.command === 'rev-list').length).toBe(1 + removes.length - heldByTip.length);
    for (const call of calls) {
      expect(call.args).not.toMatch(/ (--force|-f|prune|gc)( |$)/);
      expect(['branch', 'update-ref', 'tag', 'reset', 'checkout', 'stash', 'commit']).not.toContain(call.command);
    }
  });

  it('a report-only pass takes no index.lock and leaves every index and ref as it was, though each index is stat-dirty', async () => {
    const dir = tempDir();
    const w = buildSetsWorld(path.join(dir, 'world'));
    const adminRoot = path.join(w.repo, '.git', 'worktrees');
    const indexes = [
      path.join(w.repo, '.git', 'index'),
      ...readdirSync(adminRoot).map((id) => path.join(adminRoot, id, 'index')),
    ];
    const before = new Map(indexes.map((file) => [file, hash(file)]));
    const refsBefore = execFileSync(realGit, ['for-each-ref'], { cwd: w.repo, encoding: 'utf8' });
    const lockEvents: string[] = [];
    const watchers: FSWatcher[] = [
      path.join(w.repo, '.git'),
      ...readdirSync(adminRoot).map((id) => path.join(adminRoot, id)),
    ].map((folder) =>
      watch(folder, (_event, name) => {
        if (name?.toString().includes('index.lock')) lockEvents.push(path.join(folder, name.toString()));
      }),
    );
    try {
      const { report } = await pass({ dir, config: w.config, only: ['worktrees'], reportOnly: true });
      expect(report.items.filter((item) => item.verdict === 'would-delete').length).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lockEvents).toEqual([]);
      for (const file of indexes) expect(hash(file), file).toBe(before.get(file));
      expect(execFileSync(realGit, ['for-each-ref'], { cwd: w.repo, encoding: 'utf8' })).toBe(refsBefore);

      // The check can fail: a plain `git status`, optional locks allowed, takes index.lock and rewrites the stale index.
      const probe = path.join(adminRoot, 'dirty', 'index');
      execFileSync(realGit, ['status', '--porcelain'], {
        cwd: w.at('dirty'),
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '1' },
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hash(probe)).not.toBe(before.get(probe));
      expect(lockEvents).toContain(path.join(adminRoot, 'dirty', 'index.lock'));
    } finally {
      for (const watcher of watchers) watcher.close();
    }
  });
});
