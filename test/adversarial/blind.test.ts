import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { BlindReason, Report } from '../../src/model/types.js';
import { CLI, collect, type CliResult } from '../helpers/cli.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt, pass } from '../helpers/pass.js';
import { sleeperIn, waitFor } from '../helpers/processes.js';
import { cliReachableByAnyone } from '../helpers/reachable-cli.js';
import { container, ended } from './support/namespaces.js';
import { blindWorld, type BlindWorld } from './support/blind-world.js';
import { DEAD_ITEMS } from '../proof/scenes.js';

/**
 * Rule 19: a pass that cannot see every process refuses what it would delete (`liveness-unknown`)
 * and says in report.json which test failed. Each way of being blind is built for real (a private
 * mount namespace, a PID namespace, a procfs mounted with hidepid, a real user) around a world with
 * a live process inside a Watchfire home and an Owl job worktree, both dead by their owner's
 * record: a pass that trusted what it saw there would delete them. The same pass with the host's
 * /proc keeps the live ones and deletes the dead ones.
 */

const isRoot = process.geteuid?.() === 0;
const USER = 4319;

/** A command that ends by running the command line appended to it (`"$@"`), in a shell script. */
const script = (text: string): string[] => ['sh', '-c', `set -e; ${text}; exec "$@"`, 'sh'];

function runWrapped(wrapper: readonly string[], w: BlindWorld, config: string, cli = CLI): Promise<CliResult> {
  const argv = [...wrapper, process.execPath, cli, 'run', '--config', config, '--json', '--log-level', 'warn'];
  const child = spawn(argv[0] as string, argv.slice(1), {
    env: { ...process.env, HOME: w.home, XDG_DATA_HOME: '', XDG_STATE_HOME: '', XDG_CONFIG_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, 120_000);
}

function reportOf(run: CliResult, w: BlindWorld): Report {
  expect(run.code, run.stderr).toBe(0);
  const onDisk = JSON.parse(readFileSync(`${w.reportDir}/report.json`, 'utf8')) as Report;
  expect(JSON.parse(run.stdout)).toEqual(onDisk);
  return onDisk;
}

/** Nothing changed; every item that looked dead is refused, naming the test that failed. */
function expectBlind(run: CliResult, w: BlindWorld, because: BlindReason, before: ReturnType<BlindWorld['snapshot']>) {
  const report = reportOf(run, w);
  expect(w.changes(before, w.snapshot())).toEqual({ removed: [], changed: [], added: [] });
  expect(report.processCheck).toMatchObject({ visible: false, blindBecause: because, inspected: 0 });
  for (const item of [...w.live, ...w.dead]) {
    expect(itemAt(report, item), item).toMatchObject({ verdict: 'refused', reason: 'liveness-unknown' });
    expect(itemAt(report, item).detail).toContain(`live processes cannot be seen (${because}): `);
  }
  expect(itemAt(report, w.unfinished).verdict).toBe('unfinished');
  expect(report.totals.deleted).toBe(0);
}

/** With the host's /proc, as root: the live items are in use, the dead ones go. */
async function expectSeeingPassDeletes(w: BlindWorld, pids: ReadonlyArray<number | undefined>) {
  const run = await runWrapped([], w, w.config('auto'));
  const report = reportOf(run, w);
  expect(report.processCheck.visible).toBe(true);
  expect(report.processCheck).not.toHaveProperty('blindBecause');
  w.live.forEach((item, index) => {
    expect(itemAt(report, item), item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, item).detail).toContain(`process ${pids[index]}`);
  });
  for (const item of w.dead) expect(itemAt(report, item), item).toMatchObject({ verdict: 'deleted' });
  expect(itemAt(report, w.unfinished).verdict).toBe('unfinished');
  const left = w.snapshot();
  for (const item of w.live) expect(left.has(path.relative(w.dir, item)), item).toBe(true);
}

/**
 * /proc replaced by a tmpfs that copies a procfs's surface: `self` links to the pass, its PID
 * namespace link reads the initial one, and its mountinfo lists the tmpfs at /proc as a procfs.
 * Only statfs tells it from the real thing.
 */
const FAKE_PROC = [
  'real=$(mktemp -d)',
  'mount -t proc proc "$real"',
  'mount -t tmpfs tmpfs /proc',
  'mkdir -p /proc/$$/ns',
  'ln -s $$ /proc/self',
  "ln -s 'pid:[4026531836]' /proc/$$/ns/pid",
  "ln -s 'user:[4026531837]' /proc/$$/ns/user",
  `sed '/ \\/proc .* - tmpfs /s/ - tmpfs [^ ]* / - proc proc /' "$real/self/mountinfo" > /proc/$$/mountinfo`,
  'umount "$real"',
  'rmdir "$real"',
].join('; ');

describe.runIf(isRoot)('a pass that cannot see every process (rule 19)', () => {
  const variants: Array<{
    name: string;
    because: BlindReason;
    wrapper: (pids: ReadonlyArray<number | undefined>) => Promise<{ wrapper: string[]; done?: () => Promise<void> }>;
  }> = [
    {
      name: 'an empty tmpfs over /proc in a private mount namespace',
      because: 'not-procfs',
      wrapper: async () => ({ wrapper: ['unshare', '--mount', ...script('mount -t tmpfs tmpfs /proc')] }),
    },
    {
      name: "the /proc of a container's PID namespace, entered with nsenter --mount from the host's",
      because: 'self-mismatch',
      wrapper: async () => {
        const { init, unshare } = await container();
        return { wrapper: ['nsenter', '--mount', `--target=${init}`], done: () => ended(unshare) };
      },
    },
    {
      name: 'a PID namespace of its own with its own /proc (a pod without hostPID)',
      because: 'own-pid-namespace',
      wrapper: async () => ({ wrapper: ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'] }),
    },
    {
      name: 'a tmpfs over /proc with a fake tree whose self is the pass',
      because: 'not-procfs',
      wrapper: async () => ({ wrapper: ['unshare', '--mount', ...script(FAKE_PROC)] }),
    },
    {
      name: "a tmpfs mounted over each live process's folder in /proc",
      because: 'proc-overmounted',
      wrapper: async (pids) => ({
        wrapper: ['unshare', '--mount', ...script(pids.map((pid) => `mount -t tmpfs tmpfs /proc/${pid}`).join('; '))],
      }),
    },
  ];

  for (const variant of variants) {
    it(`refuses every item it would delete with ${variant.because}: ${variant.name}; the host's /proc then sees`, async () => {
      const w = blindWorld();
      const pids = w.startLiving();
      await waitFor(() => pids.every((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep'));
      const { wrapper, done } = await variant.wrapper(pids);
      try {
        for (const mode of ['auto', 'required'] as const) {
          const before = w.snapshot();
          expectBlind(await runWrapped(wrapper, w, w.config(mode)), w, variant.because, before);
        }
      } finally {
        await done?.();
      }
      await expectSeeingPassDeletes(w, pids);
    }, 120_000);
  }

  it("refuses as a user on a procfs mounted hidepid=2, where another user's live process is hidden, in auto and required", async () => {
    const w = blindWorld();
    w.giveTo(USER);
    const cli = cliReachableByAnyone();
    const asUser = ['setpriv', `--reuid=${USER}`, `--regid=${USER}`, '--clear-groups'];
    const onHidepid = ['unshare', '--mount', ...script('mount -t proc -o hidepid=2 proc /proc'), ...asUser];
    // Root's processes, inside the user's dead-looking items.
    const living = w.startLiving();
    await waitFor(() => living.every((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep'));

    for (const mode of ['auto', 'required'] as const) {
      const before = w.snapshot();
      expectBlind(await runWrapped(onHidepid, w, w.config(mode), cli), w, 'hidepid', before);
    }

    // On the host's /proc the user sees root's processes but cannot inspect them: required refuses,
    // not for blindness but for the count.
    const before = w.snapshot();
    const required = reportOf(await runWrapped(asUser, w, w.config('required'), cli), w);
    expect(w.changes(before, w.snapshot())).toEqual({ removed: [], changed: [], added: [] });
    expect(required.processCheck).toMatchObject({ visible: true, inspected: expect.any(Number) });
    expect(required.processCheck).not.toHaveProperty('blindBecause');
    expect(required.processCheck.uninspectable).toBeGreaterThan(0);
    for (const item of [...w.live, ...w.dead]) {
      expect(itemAt(required, item)).toMatchObject({ verdict: 'refused', reason: 'liveness-unknown' });
      expect(itemAt(required, item).detail).toMatch(
        /^processCheck is required and \d+ processes could not be inspected$/,
      );
    }

    // Once root's processes have ended, the same user's pass in auto deletes what is dead.
    for (const pid of living) process.kill(pid as number, 'SIGKILL');
    await waitFor(() => living.every((pid) => !existsProc(pid)));
    const auto = reportOf(await runWrapped(asUser, w, w.config('auto'), cli), w);
    // Root's own processes (init's, say) are still uninspectable for the user; auto goes on.
    expect(auto.processCheck.visible).toBe(true);
    expect(auto.processCheck.uninspectable).toBeGreaterThan(0);
    for (const item of [...w.live, ...w.dead]) expect(itemAt(auto, item), item).toMatchObject({ verdict: 'deleted' });
    expect(itemAt(auto, w.unfinished).verdict).toBe('unfinished');
  }, 120_000);
});

function existsProc(pid: number | undefined): boolean {
  try {
    readFileSync(`/proc/${pid}/comm`);
    return true;
  } catch {
    return false;
  }
}

/** SQLite's own -wal and -shm files beside a database a pass opened (read-only, even). */
const sqliteCompanion = (key: string): boolean => /\.db-(wal|shm)$/.test(key);

/**
 * Rule 19 for every provider and kind the world above does not hold: a dead item of each (Kilo's
 * checkpoint repositories and leftovers, Owl's admin entries, a configured worktree set and a
 * built-in one, Cline's and Roo Code's checkpoint repositories) with a live process inside, and a
 * pass that is blind to it. The pass refuses the item (`liveness-unknown`), says why in report.json,
 * and leaves every file of the world as it was.
 */
describe.runIf(isRoot)('a blind pass keeps every provider’s dead item with a live process inside (rule 19)', () => {
  const blindings: Array<{ name: string; because: BlindReason; wrapper: string[] }> = [
    {
      name: 'an empty tmpfs over /proc in a private mount namespace',
      because: 'not-procfs',
      wrapper: ['unshare', '--mount', ...script('mount -t tmpfs tmpfs /proc')],
    },
    {
      name: 'a PID namespace of its own with its own /proc',
      because: 'own-pid-namespace',
      wrapper: ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'],
    },
  ];
  const covered = new Set(['watchfire session-home', 'owl worktree']);

  for (const [label, build] of DEAD_ITEMS.filter(([name]) => !covered.has(name)))
    it(`${label}: refused liveness-unknown, blind by ${blindings.map((b) => b.because).join(' and by ')}; nothing touched`, async () => {
      const s = build();
      const sleeper = sleeperIn(s.item);
      await waitFor(() => readFileSync(`/proc/${sleeper.pid}/comm`, 'utf8').trim() === 'sleep');
      const config = path.join(s.run, 'agent-janitor.blind.yaml');
      writeFileSync(config, stringify({ ...s.config, reportDir: path.join(s.run, 'report'), processCheck: 'auto' }));
      const before = inventory(s.world);

      for (const blinding of blindings) {
        const argv = [
          ...blinding.wrapper,
          process.execPath,
          CLI,
          'run',
          '--config',
          config,
          '--only',
          s.only.join(','),
        ];
        const child = spawn(argv[0] as string, [...argv.slice(1), '--json', '--log-level', 'warn'], {
          env: { ...process.env, ...s.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const run = await collect(child, 120_000);
        expect(run.code, `${blinding.name}: ${run.stderr}`).toBe(0);
        const report = JSON.parse(readFileSync(path.join(s.run, 'report', 'report.json'), 'utf8')) as Report;
        expect(JSON.parse(run.stdout)).toEqual(report);
        expect(report.processCheck, blinding.name).toMatchObject({ visible: false, blindBecause: blinding.because });
        const item = itemAt(report, s.item);
        expect(item, `${blinding.name}: ${item.detail}`).toMatchObject({
          verdict: 'refused',
          reason: 'liveness-unknown',
        });
        expect(item.detail).toContain(`live processes cannot be seen (${blinding.because}): `);
        expect(report.totals.deleted).toBe(0);
        const diff = diffInventories(before, inventory(s.world));
        expect(diff.removed, blinding.name).toEqual([]);
        expect(
          diff.added.filter((key) => !sqliteCompanion(key)),
          blinding.name,
        ).toEqual([]);
        // A folder's mtime may move with SQLite's companions in it; every entry is compared on its own.
        const changed = diff.changed.filter((key) => !sqliteCompanion(key) && before.get(key)?.type !== 'dir');
        expect(changed, blinding.name).toEqual([]);
      }

      // The host's /proc sees the process, and the item is in use: it was the blindness that kept it.
      const seeing = await pass({ dir: s.run, config: s.config, only: s.only, env: s.env, reportOnly: true });
      expect(itemAt(seeing.report, s.item)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(itemAt(seeing.report, s.item).detail).toContain(String(sleeper.pid));
    }, 120_000);
});
