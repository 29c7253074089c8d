import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { reconcile } from '../../../src/reconcile/reconcile.js';
import type { PassResult } from '../../../src/pass/pass.js';
import type { Provider } from '../../../src/provider-api/provider.js';
import { kilo } from '../../../src/providers/kilo/index.js';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { addKiloWorktree, git, kiloPaths, makeSnapshot, pinOf, refExists, removeKiloWorktree } from './fixtures.js';
import { expectOnlyRemoved, FOREIGN_ENV, scene, snapshotOf, type Scene } from './scene.js';
import { PROVIDERS } from '../../../src/providers/registry.js';

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
  delete process.env.AJ_GIT_LOG;
});

/**
 * A `git` first on PATH that notes every call the pass makes, then runs the real git. The pass
 * always sets GIT_OPTIONAL_LOCKS=0; the fixtures' own git calls do not, and are not noted.
 */
function recordGit(s: Scene): () => string[] {
  const bin = path.join(s.work, 'bin');
  const log = path.join(s.work, 'git-calls.log');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\nif [ "$GIT_OPTIONAL_LOCKS" = 0 ]; then printf '%s\\n' "$*" >> "$AJ_GIT_LOG"; fi\nexec ${realGit} "$@"\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  writeFileSync(log, '');
  process.env.PATH = `${bin}:${savedPath}`;
  process.env.AJ_GIT_LOG = log;
  return () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const COMMANDS = ['config', 'rev-parse', 'worktree list', 'for-each-ref', 'update-ref'] as const;

function countByCommand(calls: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of calls) {
    const command = COMMANDS.find((name) => ` ${call} `.includes(` ${name} `)) ?? call;
    counts[command] = (counts[command] ?? 0) + 1;
  }
  return counts;
}

/** A real pass over the scene's home whose Kilo provider runs `afterGather` between gathering and deleting. */
async function passOver(
  s: Scene,
  options: { reportOnly?: boolean; afterGather?: () => void } = {},
): Promise<PassResult> {
  const file = path.join(s.work, 'agent-janitor.yaml');
  writeFileSync(file, stringify({ reportDir: path.join(s.work, 'report'), homes: [s.home], minAge: '0s' }));
  const env = { ...process.env, ...FOREIGN_ENV };
  const config = await loadConfig({ providers: PROVIDERS, file, env });
  const provider: Provider = {
    name: 'kilo',
    async gather(ctx) {
      const gathered = await kilo.gather(ctx);
      options.afterGather?.();
      return gathered;
    },
  };
  return reconcile({
    config,
    providers: [provider],
    only: ['kilo'],
    reportOnly: options.reportOnly ?? false,
    log: pino({ level: 'silent' }),
    env,
  });
}

/** Checkpoint repositories of worktrees of R: `dead` of them removed with `kilo worktree remove`, `live` still there. */
function fleet(s: Scene, dead: number, live: number, data = s.data): { dead: string[]; live: string[] } {
  const made = { dead: [] as string[], live: [] as string[] };
  for (let i = 0; i < dead + live; i += 1) {
    const name = `${path.basename(path.dirname(data))}-${path.basename(data)}-task-${i}`;
    const worktree = addKiloWorktree(s.repo, name);
    const gitdir = makeSnapshot(data, s.projectId, worktree, i === 0 ? { seededFrom: s.repo } : {});
    if (i < dead) {
      removeKiloWorktree(s.repo, worktree);
      made.dead.push(gitdir);
    } else made.live.push(gitdir);
  }
  return made;
}

describe('git processes of a Kilo pass', () => {
  it('reads every checkpoint repository without a git process, and each owner repository once per pass, for every data folder', async () => {
    const s = scene();
    const kilo = fleet(s, 3, 3);
    const opencode = fleet(s, 2, 1, kiloPaths(s.home, 'opencode').data);
    const before = snapshotOf(s);
    const calls = recordGit(s);

    const { report } = await passOver(s, { reportOnly: true });

    for (const gitdir of [...kilo.dead, ...opencode.dead])
      expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'would-delete', reason: 'worktree-removed' });
    for (const gitdir of [...kilo.live, ...opencode.live])
      expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    expect(countByCommand(calls())).toEqual({ 'rev-parse': 1, 'worktree list': 1, 'for-each-ref': 1 });
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('asks git config exactly about the config files it does not fully understand, and judges them the same', async () => {
    const s = scene();
    const made = fleet(s, 2, 2);
    const config = (gitdir: string) => path.join(gitdir, 'config');
    // The same settings, written as git would never write them: CRLF line ends, and a quoted worktree.
    const crlf = made.dead[0] as string;
    writeFileSync(config(crlf), readFileSync(config(crlf), 'utf8').replace(/\n/g, '\r\n'));
    const quoted = made.live[0] as string;
    writeFileSync(config(quoted), readFileSync(config(quoted), 'utf8').replace(/worktree = (.*)/, 'worktree = "$1"'));
    const before = snapshotOf(s);
    const calls = recordGit(s);

    const { report } = await passOver(s, { reportOnly: true });

    for (const gitdir of made.dead)
      expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'would-delete', reason: 'worktree-removed' });
    for (const gitdir of made.live)
      expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'kept', reason: 'worktree-present' });
    const asked = calls().filter((call) => call.includes(' config ') && call.includes(' --file '));
    expect(asked.map((call) => call.slice(call.indexOf('--file ') + '--file '.length, call.indexOf(' --get')))).toEqual(
      expect.arrayContaining([config(crlf), config(quoted)]),
    );
    expect(asked).toHaveLength(2);
    expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
  });

  it("deletes each repository under Kilo's lock with one git process, and its pin with one more", async () => {
    const s = scene();
    const made = fleet(s, 3, 2);
    const pinned = made.dead[0] as string;
    const pinFile = path.join(s.repo, '.git', pinOf(pinned));
    expect(existsSync(pinFile)).toBe(true);
    const before = snapshotOf(s);
    const calls = recordGit(s);

    const { report } = await passOver(s);

    for (const gitdir of made.dead)
      expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    for (const gitdir of made.live) expect(itemAt(report, gitdir).verdict).toBe('kept');
    // Gathering reads R once (three processes); under each lock only `git worktree list` runs again.
    expect(countByCommand(calls())).toEqual({
      'rev-parse': 1,
      'worktree list': 1 + made.dead.length,
      'for-each-ref': 1,
      'update-ref': 1,
    });
    expect(refExists(s.repo, pinOf(pinned))).toBe(false);
    expectOnlyRemoved(s, before, snapshotOf(s), made.dead, [pinFile]);
  });
});

describe("under Kilo's lock, the owner repository looked at again", () => {
  it('keeps a repository whose worktree git lists again since the pass gathered', async () => {
    const s = scene();
    const made = fleet(s, 2, 0);
    const [back, gone] = made.dead as [string, string];
    const worktree = path.join(s.repo, '.kilo', 'worktrees', 'share-kilo-task-0');
    const before = snapshotOf(s);

    const { report } = await passOver(s, {
      // A worktree made again at the same path, its folder then lost (a crash, a volume gone).
      afterGather: () => {
        git(['-C', s.repo, 'worktree', 'add', '-q', worktree]);
        rmSync(worktree, { recursive: true, force: true });
      },
    });

    expect(itemAt(report, back)).toMatchObject({ verdict: 'refused', reason: 'worktree-still-registered' });
    expect(itemAt(report, back).detail).toContain('judged again just before the delete');
    expect(itemAt(report, gone)).toMatchObject({ verdict: 'deleted' });
    expect(existsSync(back)).toBe(true);
    const after = snapshotOf(s);
    const changed = diffInventories(before, after);
    const relative = (p: string) => path.relative(s.root, p);
    expect(changed.removed.filter((key) => key.startsWith(relative(back)))).toEqual([]);
    expect(changed.changed.filter((key) => key.startsWith(relative(back)))).toEqual([]);
  });

  it('reads the owner again from the start when its .git is no longer the one git found, and refuses once it is no repository', async () => {
    const s = scene();
    const made = fleet(s, 1, 0);
    const gitdir = made.dead[0] as string;
    const calls = recordGit(s);
    let before = snapshotOf(s);

    const { report } = await passOver(s, {
      afterGather: () => {
        renameSync(path.join(s.repo, '.git'), path.join(s.root, 'moved-git'));
        before = snapshotOf(s);
      },
    });

    expect(itemAt(report, gitdir)).toMatchObject({ verdict: 'refused', reason: 'owner-unavailable' });
    // The whole reading again: rev-parse a second time, and it found no repository in R.
    expect(countByCommand(calls())).toEqual({ 'rev-parse': 2, 'worktree list': 1, 'for-each-ref': 1 });
    expect(diffInventories(before, snapshotOf(s)).removed.filter((key) => !key.includes(`${path.sep}locks`))).toEqual(
      [],
    );
  });

  it('counts a pin Kilo dropped before the lock was ours as gone, and leaves a pin that moved where it is', async () => {
    const s = scene();
    const first = addKiloWorktree(s.repo, 'first');
    const second = addKiloWorktree(s.repo, 'second');
    const dropped = makeSnapshot(s.data, s.projectId, first, { seededFrom: s.repo });
    const moved = makeSnapshot(s.data, s.projectId, second, { seededFrom: s.repo });
    removeKiloWorktree(s.repo, first);
    removeKiloWorktree(s.repo, second);
    const elsewhere = git(['-C', s.repo, 'rev-parse', 'HEAD~1^{tree}']).trim();

    const { report } = await passOver(s, {
      afterGather: () => {
        git(['-C', s.repo, 'update-ref', '-d', pinOf(dropped)]);
        git(['-C', s.repo, 'update-ref', pinOf(moved), elsewhere]);
      },
    });

    expect(itemAt(report, dropped)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(existsSync(dropped)).toBe(false);
    // The repository went, but the pin that moved is not dropped: only ever at the value read.
    expect(existsSync(moved)).toBe(false);
    expect(itemAt(report, moved)).toMatchObject({ verdict: 'deleted', reason: 'worktree-removed' });
    expect(itemAt(report, moved).detail).toContain(`is left: it moved from`);
    expect(itemAt(report, moved).detail).toContain(`to ${elsewhere}`);
    expect(git(['-C', s.repo, 'rev-parse', pinOf(moved)]).trim()).toBe(elsewhere);
  });
});
