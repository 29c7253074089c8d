import { spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { reconcile } from '../../../src/reconcile/reconcile.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Report, ReportItem } from '../../../src/model/types.js';
import { renderLastPass } from '../../../src/outputs/metrics/last-pass.js';
import { outcomeOfReport } from '../../../src/outputs/metrics/outcome.js';
import { PROVIDERS } from '../../../src/providers/registry.js';
import { diffInventories } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import { lockDirOf, makeSnapshot, writeKiloLock } from '../../providers/kilo/fixtures.js';
import { FOREIGN_ENV, runKilo, scene, snapshotOf, type Scene } from '../../providers/kilo/scene.js';
import { killGitMidPack, stopGitMidPack } from '../../support/real-clis/git-garbage.js';

/**
 * The hostile cases of a single-file removal, each against real git garbage (a `git add` killed or
 * stopped mid-pack) in a live opencode or Kilo Code checkpoint repository: each case is one check
 * of the judge, the executor or the last proof, and without that check the file would go.
 */

const isRoot = process.geteuid?.() === 0;
const users: RealUser[] = isRoot ? addUsers(2) : [];

const living: ChildProcess[] = [];
afterEach(() => {
  for (const child of living.splice(0)) child.kill('SIGKILL');
});

async function garbageScene(app: 'opencode' | 'kilo' = 'opencode') {
  const s = scene(app);
  const gitdir = makeSnapshot(s.data, s.projectId, s.repo);
  const killed = await killGitMidPack({ gitDir: gitdir, workTree: s.repo });
  return { s, gitdir, tmpPack: killed.tmpPack, bytes: killed.bytes };
}

/** A process that is not git and holds `file` open (descriptor 3 of a sleep). */
async function holdOpen(file: string): Promise<ChildProcess> {
  const child = spawn('sh', ['-c', 'exec 3<"$1"; exec sleep 600', 'sh', file], { stdio: 'ignore' });
  living.push(child);
  await waitFor(() => heldBy(child.pid as number, file));
  return child;
}

function heldBy(pid: number, file: string): boolean {
  try {
    return (
      readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep' &&
      statSync(`/proc/${pid}/fd/3`).ino === statSync(file).ino
    );
  } catch {
    return false;
  }
}

/** A git that waits on its stdin, started as `how` says: it names the repository, or works from inside it. */
async function gitAtWork(
  gitdir: string,
  how: 'argument' | 'cwd' | 'environment',
  elsewhere: string,
): Promise<ChildProcess> {
  const args = how === 'argument' ? ['--git-dir', gitdir, 'cat-file', '--batch'] : ['cat-file', '--batch'];
  const child = spawn('git', args, {
    cwd: how === 'cwd' ? path.join(gitdir, 'objects') : elsewhere,
    env: { ...process.env, ...(how === 'environment' ? { GIT_DIR: gitdir } : { GIT_DIR: undefined }) },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  living.push(child);
  await waitFor(() => {
    try {
      return readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes('cat-file');
    } catch {
      return false;
    }
  });
  return child;
}

async function heldBytes(report: Report): Promise<number> {
  const text = await renderLastPass(outcomeOfReport(report, 0, ['kilo']), null);
  const line = text
    .split('\n')
    .find((row) => row.startsWith('agent_janitor_held_bytes{provider="kilo",kind="git-garbage"}'));
  return Number(line?.split(' ').pop() ?? 0);
}

function expectUntouched(s: Scene, before: ReturnType<typeof snapshotOf>): void {
  const diff = diffInventories(before, snapshotOf(s));
  expect(diff.removed).toEqual([]);
  expect(diff.changed.filter((key) => !/\.db-(wal|shm)$/.test(key))).toEqual([]);
}

describe('git garbage: what keeps a temporary file', () => {
  it('a real git stopped mid-pack still writes its tmp_pack: refused in-use, the git named, its bytes held', async () => {
    const s = scene('opencode');
    const gitdir = makeSnapshot(s.data, s.projectId, s.repo);
    const { git: writer, tmpPack } = await stopGitMidPack({ gitDir: gitdir, workTree: s.repo });
    living.push(writer);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    const item = itemAt(report, tmpPack);
    expect(item).toMatchObject({ kind: 'git-garbage', verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`process ${writer.pid} (git --git-dir /`);
    expect(item.detail).toContain('has it open or mapped');
    expect(item.bytes).toBe(lstatSync(tmpPack).size);
    expect(await heldBytes(report)).toBe(item.bytes);
    expectUntouched(s, before);
  }, 120_000);

  it('a process that is not git but holds the file open keeps it (in-use by identity), named', async () => {
    const { s, tmpPack } = await garbageScene();
    const holder = await holdOpen(tmpPack);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    const item = itemAt(report, tmpPack);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`process ${holder.pid} (sleep 600`);
    expect(await heldBytes(report)).toBe(item.bytes);
    expectUntouched(s, before);
  }, 120_000);

  for (const how of ['argument', 'cwd', 'environment'] as const) {
    it(`a git at work in the repository (found by its ${how}) keeps every temporary file of it, the git named`, async () => {
      const { s, gitdir, tmpPack } = await garbageScene();
      const other = makeSnapshot(s.data, s.projectId, path.join(s.root, 'elsewhere'));
      const worker = await gitAtWork(gitdir, how, s.repo);
      // A git at work in another repository keeps nothing here.
      await gitAtWork(other, 'argument', s.repo);
      const before = snapshotOf(s);

      const { report } = await runKilo(s);

      const item = itemAt(report, tmpPack);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(item.detail).toContain(`process ${worker.pid} (git `);
      expect(item.detail).toContain(`is git at work in the repository ${gitdir}`);
      expect(await heldBytes(report)).toBe(item.bytes);
      expectUntouched(s, before);

      worker.kill('SIGKILL');
      await waitFor(() => worker.exitCode !== null || worker.signalCode !== null);
      const again = await runKilo(s);
      expect(itemAt(again.report, tmpPack)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    }, 120_000);
  }

  it('refuses liveness-unknown in a blind pass, like everything else (rule 19)', async () => {
    const { s, tmpPack } = await garbageScene();
    const emptyProc = tempDir('aj-no-proc-');
    const config = path.join(s.work, 'blind.yaml');
    writeFileSync(config, stringify({ homes: [s.home], minAge: '0s', reportDir: path.join(s.work, 'report') }));
    const env = { ...process.env, ...FOREIGN_ENV };
    const before = snapshotOf(s);

    const { report } = await reconcile({
      config: await loadConfig({ providers: PROVIDERS, file: config, env }),
      providers: PROVIDERS,
      only: ['kilo'],
      reportOnly: false,
      log: pino({ level: 'silent' }),
      env,
      procRoot: emptyProc,
    });

    expect(report.processCheck.visible).toBe(false);
    expect(itemAt(report, tmpPack)).toMatchObject({ verdict: 'refused', reason: 'liveness-unknown' });
    expectUntouched(s, before);
  }, 120_000);
});

describe('git garbage: what changes between the plan and the unlink', () => {
  /** A deleting pass whose plan is made, then `meanwhile` runs before anything is deleted. */
  async function passWith(s: Scene, meanwhile: (items: readonly ReportItem[]) => void | Promise<void>) {
    return pass({
      dir: s.work,
      config: { homes: [s.home], minAge: '0s' },
      only: ['kilo'],
      env: FOREIGN_ENV,
      onPlanned: meanwhile,
    });
  }

  it('a file replaced by another (a new inode of the same name) is refused changed-during-inspection; the new one stays', async () => {
    const { s, tmpPack } = await garbageScene();
    const { report } = await passWith(s, (items) => {
      expect(items.find((item) => item.path === tmpPack)?.verdict).toBe('would-delete');
      writeFileSync(`${tmpPack}.new`, 'a new file under the old name');
      renameSync(`${tmpPack}.new`, tmpPack);
    });
    expect(itemAt(report, tmpPack)).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(readFileSync(tmpPack, 'utf8')).toBe('a new file under the old name');
  }, 120_000);

  it('a file written after the pass began collecting evidence (its ctime) is refused changed-during-inspection, nothing deleted', async () => {
    const { s, tmpPack, bytes } = await garbageScene();
    const { report } = await passWith(s, () => appendFileSync(tmpPack, 'more'));
    expect(itemAt(report, tmpPack)).toMatchObject({ verdict: 'refused', reason: 'changed-during-inspection' });
    expect(lstatSync(tmpPack).size).toBe(bytes + 4);
  }, 120_000);

  it('a process that opens the file after the plan keeps it (the last proof looks at /proc again)', async () => {
    const { s, tmpPack } = await garbageScene();
    let holder: ChildProcess | undefined;
    const { report } = await passWith(s, async () => {
      holder = await holdOpen(tmpPack);
    });
    const item = itemAt(report, tmpPack);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`process ${holder?.pid} got inside after it was judged`);
    expect(lstatSync(tmpPack).isFile()).toBe(true);
  }, 120_000);

  it('a git that starts work in the repository after the plan keeps its garbage (the last proof)', async () => {
    const { s, gitdir, tmpPack } = await garbageScene();
    let worker: ChildProcess | undefined;
    const { report } = await passWith(s, async () => {
      worker = await gitAtWork(gitdir, 'argument', s.repo);
    });
    const item = itemAt(report, tmpPack);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain(`git process ${worker?.pid} got to work in the repository ${gitdir}`);
    expect(lstatSync(tmpPack).isFile()).toBe(true);
  }, 120_000);

  it("a Kilo Code that takes the repository's snapshot lock after the plan keeps the garbage (kilo-lock-held)", async () => {
    const { s, gitdir, tmpPack } = await garbageScene('kilo');
    const { report } = await passWith(s, () => writeKiloLock(lockDirOf(s.state, gitdir), new Date()));
    expect(itemAt(report, tmpPack)).toMatchObject({ verdict: 'refused', reason: 'kilo-lock-held' });
    expect(lstatSync(tmpPack).isFile()).toBe(true);
  }, 120_000);
});

describe.runIf(isRoot)("git garbage: other users' files (rule 20)", () => {
  it("deletes a user's own garbage as that user, and refuses a temporary file of another uid (foreign-owner)", async () => {
    const [ana, bob] = users as [RealUser, RealUser];
    const { s, gitdir, tmpPack } = await garbageScene();
    const planted = path.join(gitdir, 'objects', 'pack', 'tmp_idx_B0bFile');
    writeFileSync(planted, "bob's bytes");
    giveTo(s.home, ana);
    chownSync(planted, bob.uid, bob.gid);
    const before = snapshotOf(s);

    const { report } = await runKilo(s);

    expect(itemAt(report, tmpPack)).toMatchObject({ verdict: 'deleted', reason: 'git-temporary' });
    expect(itemAt(report, planted)).toMatchObject({ verdict: 'refused', reason: 'foreign-owner' });
    expect(readFileSync(planted, 'utf8')).toBe("bob's bytes");
    expect(diffInventories(before, snapshotOf(s)).removed).toEqual([path.relative(s.root, tmpPack)]);
  }, 120_000);

  it("a link named tmp_pack_x to another user's file is never listed, followed or deleted", async () => {
    const [ana, bob] = users as [RealUser, RealUser];
    const { s, gitdir, tmpPack } = await garbageScene();
    const bobs = path.join(tempDir('aj-bob-'), 'precious.pack');
    writeFileSync(bobs, "bob's pack");
    chownSync(bobs, bob.uid, bob.gid);
    const link = path.join(gitdir, 'objects', 'pack', 'tmp_pack_x');
    symlinkSync(bobs, link);
    giveTo(s.home, ana);

    const { report } = await runKilo(s);

    expect(report.items.some((item) => item.path === link)).toBe(false);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(bobs, 'utf8')).toBe("bob's pack");
    expect(itemAt(report, tmpPack).verdict).toBe('deleted');
  }, 120_000);

  it("an objects folder that is a link into another user's repository: its garbage is refused symlink-in-path", async () => {
    const [ana, bob] = users as [RealUser, RealUser];
    const { s, gitdir } = await garbageScene();
    const theirs = tempDir('aj-bob-repo-');
    const theirGarbage = path.join(theirs, 'objects', 'pack', 'tmp_pack_b0b123');
    mkdirSync(path.dirname(theirGarbage), { recursive: true });
    writeFileSync(theirGarbage, "bob's half-written pack");
    giveTo(theirs, bob);
    const objects = path.join(gitdir, 'objects');
    renameSync(objects, `${objects}.real`);
    symlinkSync(path.join(theirs, 'objects'), objects);
    giveTo(s.home, ana);

    const { report } = await runKilo(s);

    const item = itemAt(report, path.join(objects, 'pack', 'tmp_pack_b0b123'));
    expect(item).toMatchObject({ verdict: 'refused', reason: 'symlink-in-path' });
    expect(readFileSync(theirGarbage, 'utf8')).toBe("bob's half-written pack");
  }, 120_000);
});
