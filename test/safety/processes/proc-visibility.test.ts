import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { procVisibility } from '../../../src/safety/processes/proc-visibility.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { cliReachableByAnyone } from '../../helpers/reachable-cli.js';
import { tempDir } from '../../helpers/temp.js';
import { container } from '../../adversarial/support/namespaces.js';

/**
 * Each test of rule 19 on the real kernel: procfs mounts made with the options named, in a private
 * mount namespace, looked at by a process run as root or as a user (setpriv), with or without a
 * capability or a group. The decision is the built module's, run in that process.
 */

const isRoot = process.geteuid?.() === 0;
const USER = 4321;
/** The built module, at a path a user may reach too (a checkout in a root-only folder is bound elsewhere). */
const moduleFor = () => path.resolve(path.dirname(cliReachableByAnyone()), 'safety/processes/proc-visibility.js');

interface Answer {
  visible: boolean;
  because?: string;
  why?: string;
}

/** procVisibility(procRoot) as a process started by `wrapper` sees it. */
function answerIn(wrapper: readonly string[], procRoot = '/proc'): Answer {
  const code = `import(${JSON.stringify(moduleFor())}).then((m) => process.stdout.write(JSON.stringify(m.procVisibility(${JSON.stringify(procRoot)}))))`;
  const argv = [...wrapper, process.execPath, '--input-type=module', '-e', code];
  const run = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Answer;
}

/** A private mount namespace that runs `setup` before the process. */
const withMounts = (setup: string): string[] => ['unshare', '--mount', 'sh', '-c', `set -e; ${setup}; exec "$@"`, 'sh'];
const procWith = (options: string) => withMounts(`mount -t proc -o ${options} proc /proc`);
const asUser = (...extra: string[]) => ['setpriv', `--reuid=${USER}`, `--regid=${USER}`, '--clear-groups', ...extra];
const withPtrace = ['--inh-caps=+sys_ptrace', '--ambient-caps=+sys_ptrace'];

describe.runIf(isRoot)('when processes count as seen (rule 19)', () => {
  it('sees with the host /proc, as root and as a user, and through a bind mount of it elsewhere', () => {
    expect(procVisibility('/proc')).toEqual({ visible: true });
    expect(answerIn(asUser())).toEqual({ visible: true });
    const elsewhere = path.join(tempDir(), 'proc');
    mkdirSync(elsewhere);
    expect(answerIn(withMounts(`mount --bind /proc ${elsewhere}`), elsewhere)).toEqual({ visible: true });
  });

  it('is blind through a folder that is no procfs: missing, empty, or a tmpfs over /proc', () => {
    const dir = tempDir();
    expect(procVisibility(path.join(dir, 'missing'))).toMatchObject({ visible: false, because: 'not-procfs' });
    expect(procVisibility(dir)).toMatchObject({ visible: false, because: 'not-procfs' });
    expect(answerIn(withMounts('mount -t tmpfs tmpfs /proc'))).toMatchObject({
      visible: false,
      because: 'not-procfs',
      why: expect.stringMatching(/^\/proc is not a procfs \(file system type 0x1021994\)/),
    });
  });

  it("is blind through a container's /proc from the host's PID namespace, and inside the container", async () => {
    const { init } = await container();
    expect(answerIn(['nsenter', '--mount', `--target=${init}`])).toMatchObject({
      visible: false,
      because: 'self-mismatch',
    });
    // The same procfs reached from the host's own mount namespace, through the container's root.
    expect(procVisibility(`/proc/${init}/root/proc`)).toMatchObject({ visible: false, because: 'self-mismatch' });
    expect(answerIn(['nsenter', '--mount', '--pid', `--target=${init}`])).toMatchObject({
      visible: false,
      because: 'own-pid-namespace',
    });
    expect(answerIn(['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'])).toMatchObject({
      visible: false,
      because: 'own-pid-namespace',
      why: expect.stringContaining('(use hostPID)'),
    });
  });

  it("is blind through a procfs that is not among the pass's mounts (another mount namespace's, in the same PID namespace)", async () => {
    const holder = spawnLiving('unshare', [
      '--mount',
      'sh',
      '-c',
      'mount -t proc -o hidepid=2 proc /proc; exec sleep 600',
    ]);
    await waitFor(() => {
      try {
        return readFileSync(`/proc/${holder.pid}/comm`, 'utf8').trim() === 'sleep';
      } catch {
        return false;
      }
    });
    // Its `self` is this process and its namespace the initial one, but its options are not ours to read.
    expect(procVisibility(`/proc/${holder.pid}/root/proc`)).toMatchObject({
      visible: false,
      because: 'proc-mount-unknown',
    });
  });

  it.each([
    ['hidepid=2', asUser(), false],
    ['hidepid=invisible', asUser(), false],
    ['hidepid=1', asUser(), false],
    ['hidepid=noaccess', asUser(), false],
    ['hidepid=2', asUser(...withPtrace), false],
    ['hidepid=1', asUser(...withPtrace), true],
    ['hidepid=2,gid=4322', asUser(), false],
    ['hidepid=2,gid=4322', [...asUser(), '--groups=4322'].filter((arg) => arg !== '--clear-groups'), true],
    [`hidepid=2,gid=${USER}`, asUser(), true],
    ['hidepid=2', [], true],
    ['hidepid=2', ['setpriv', '--regid=4322', '--clear-groups'], false],
    ['hidepid=ptraceable', [], false],
    ['hidepid=0', asUser(), true],
    ['hidepid=off', asUser(), true],
    ['subset=pid', [], false],
  ] as const)('on a procfs mounted %s, a pass run as %j sees: %s', (options, identity, sees) => {
    const answer = answerIn([...procWith(options), ...identity]);
    if (sees) expect(answer).toEqual({ visible: true });
    else
      expect(answer).toMatchObject({
        visible: false,
        because: options.startsWith('subset') ? 'subset' : 'hidepid',
        why: expect.stringContaining(`/proc is mounted with ${options.split(',')[0]?.split('=')[0]}=`),
      });
  });

  it('trusts no group in a user namespace of its own, where its group numbers are not the host’s', () => {
    const inOwnUserNamespace = ['unshare', '--user', '--map-root-user'];
    expect(answerIn([...procWith('hidepid=off'), ...inOwnUserNamespace])).toEqual({ visible: true });
    expect(answerIn([...procWith('hidepid=2'), ...inOwnUserNamespace])).toMatchObject({
      visible: false,
      because: 'hidepid',
    });
  });

  it("is blind where a file system is mounted over a process's folder, not over the rest of /proc", () => {
    const sleeper = spawnLiving('sleep', ['600']);
    expect(answerIn(withMounts(`mount -t tmpfs tmpfs /proc/${sleeper.pid}`))).toMatchObject({
      visible: false,
      because: 'proc-overmounted',
      why: `a file system is mounted at /proc/${sleeper.pid}, over a process's folder`,
    });
    expect(answerIn(withMounts(`mount -t tmpfs tmpfs /proc/${sleeper.pid}/fd`))).toMatchObject({
      because: 'proc-overmounted',
    });
    // Over the pass's own folder, where its namespace link and its mountinfo are read: a fake of
    // both there would otherwise pass every test.
    expect(
      answerIn(
        withMounts(
          `cp /proc/self/mountinfo /tmp/aj-mountinfo.$$; mount -t tmpfs tmpfs /proc/$$; mkdir /proc/$$/ns; ln -s 'pid:[4026531836]' /proc/$$/ns/pid; mv /tmp/aj-mountinfo.$$ /proc/$$/mountinfo`,
        ),
      ),
    ).toEqual({
      visible: false,
      because: 'proc-overmounted',
      why: expect.stringMatching(/over this process's own folder$/),
    });
    // What a container runtime masks (/proc/acpi, /proc/timer_list, a read-only /proc/sys) hides no process.
    expect(
      answerIn(
        withMounts(
          'mount -t tmpfs tmpfs /proc/acpi; mount --bind /dev/null /proc/timer_list; mount --bind -o ro /proc/sys /proc/sys',
        ),
      ),
    ).toEqual({ visible: true });
  });
});
