/**
 * The systemd units and deploy/install.sh: what the units say (hardened, never blinded), that the
 * install script lays them out idempotently with a checked config, and that `systemd-analyze
 * verify` (Debian's systemd) accepts the installed units, with the ExecStart binary in place.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { tempDir } from '../helpers/temp.js';
import { listSetting, parseUnit, setting } from './unit-file.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'dist/cli.js');
const INSTALL = path.join(REPO, 'deploy/install.sh');
const unitText = (scope: string, name: string) => readFileSync(path.join(REPO, 'systemd', scope, name), 'utf8');
const unit = (scope: string, name: string) => parseUnit(unitText(scope, name));

const CAPABILITIES = ['CAP_DAC_READ_SEARCH', 'CAP_DAC_OVERRIDE', 'CAP_SYS_PTRACE', 'CAP_SETUID', 'CAP_SETGID'];
/** Settings that would hide homes, /tmp worktrees or the agents' processes from a pass. */
const BLINDING: Array<[string, RegExp]> = [
  ['ProtectHome', /.*/],
  ['PrivateTmp', /.*/],
  ['ProtectProc', /^(invisible|noaccess|ptraceable)$/],
  ['ProcSubset', /^pid$/],
  ['PrivateUsers', /.*/],
  ['PrivatePIDs', /.*/],
  ['TemporaryFileSystem', /.*/],
  ['InaccessiblePaths', /.*/],
  ['PrivateMounts', /.*/],
];

describe('systemd units', () => {
  it('system service: a low-priority oneshot pass over the system config', () => {
    const service = unit('system', 'agent-janitor.service');
    expect(setting(service, 'Service', 'Type')).toBe('oneshot');
    expect(setting(service, 'Service', 'ExecStart')).toBe(
      '/usr/local/bin/agent-janitor run --config /etc/agent-janitor/config.yaml',
    );
    expect(setting(service, 'Service', 'Nice')).toBe('19');
    expect(setting(service, 'Service', 'IOSchedulingClass')).toBe('idle');
    expect(setting(service, 'Service', 'SuccessExitStatus')).toBe('75');
    expect(setting(service, 'Service', 'StateDirectory')).toBe('agent-janitor');
    expect(setting(service, 'Service', 'User')).toBeUndefined();
  });

  it('system service: hardened, but nothing hides the homes, /tmp or the processes', () => {
    const service = unit('system', 'agent-janitor.service');
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectKernelTunables', 'yes'],
      ['ProtectKernelModules', 'yes'],
      ['ProtectKernelLogs', 'yes'],
      ['ProtectControlGroups', 'yes'],
    ]) {
      expect(setting(service, 'Service', key as string), key).toBe(value);
    }
    expect(listSetting(service, 'Service', 'RestrictAddressFamilies').sort()).toEqual([
      'AF_INET',
      'AF_INET6',
      'AF_UNIX',
    ]);
    expect(setting(service, 'Service', 'SystemCallFilter')).toBe('@system-service');
    expect(setting(service, 'Service', 'SystemCallErrorNumber')).toBe('EPERM');
    for (const [key, forbidden] of BLINDING) {
      const value = setting(service, 'Service', key);
      expect(value === undefined || !forbidden.test(value) || value === 'no', `${key}=${value}`).toBe(true);
    }
  });

  it('system service: only the five capabilities, and writes only where a pass writes', () => {
    const service = unit('system', 'agent-janitor.service');
    expect(listSetting(service, 'Service', 'CapabilityBoundingSet').sort()).toEqual([...CAPABILITIES].sort());
    expect(listSetting(service, 'Service', 'AmbientCapabilities')).toEqual([]);
    expect(listSetting(service, 'Service', 'ReadWritePaths').sort()).toEqual(
      ['-/home', '-/root', '-/tmp', '-/var/tmp', '-/var/lib/prometheus/node-exporter'].sort(),
    );
  });

  it('user service: no capabilities, no settings a user manager needs user namespaces for', () => {
    const service = unit('user', 'agent-janitor.service');
    expect(setting(service, 'Service', 'Type')).toBe('oneshot');
    expect(setting(service, 'Service', 'ExecStart')).toBe(
      '/usr/local/bin/agent-janitor run --config %h/.config/agent-janitor/config.yaml',
    );
    expect(setting(service, 'Service', 'Nice')).toBe('19');
    expect(setting(service, 'Service', 'IOSchedulingClass')).toBe('idle');
    for (const key of [
      'CapabilityBoundingSet',
      'AmbientCapabilities',
      'ProtectSystem',
      'ReadWritePaths',
      'StateDirectory',
      'User',
    ]) {
      expect(setting(service, 'Service', key), key).toBeUndefined();
    }
    for (const [key] of BLINDING) expect(setting(service, 'Service', key), key).toBeUndefined();
  });

  it('system service: every system call a pass makes (git included) is in its SystemCallFilter', () => {
    const filter = setting(unit('system', 'agent-janitor.service'), 'Service', 'SystemCallFilter') as string;
    const allowed = expandSyscallGroup(filter);
    expect(allowed.has('openat')).toBe(true);
    const dir = tempDir('aj-syscalls-');
    const log = path.join(dir, 'strace.txt');
    // Only the calls outside the filter are traced (a seccomp filter of strace's own picks them).
    const outside = `!${[...allowed].map((name) => `?${name}`).join(',')}`;
    const traced = spawnSync(
      'strace',
      [
        '-f',
        '-qq',
        '--seccomp-bpf',
        '-e',
        `trace=${outside}`,
        '-e',
        'signal=none',
        '-o',
        log,
        process.execPath,
        CLI,
        'demo',
        '--dir',
        path.join(dir, 'sandbox'),
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(traced.error, 'strace (Debian package strace) must be installed').toBeUndefined();
    expect(traced.status, traced.stderr).toBe(0);
    const calls = new Set([...readFileSync(log, 'utf8').matchAll(/^\d+ +([a-z_0-9]+)\(/gm)].map((m) => m[1] as string));
    // V8 asks for memory protection keys and goes on without them where the call fails (as it
    // does on CPUs without them): EPERM is one more failure. Seeing it also shows the trace works.
    expect(calls).toContain('pkey_alloc');
    expect([...calls].filter((name) => name !== 'pkey_alloc')).toEqual([]);
  }, 150_000);

  it.each(['system', 'user'])('%s timer: hourly, spread out, catches up after downtime', (scope) => {
    const timer = unit(scope, 'agent-janitor.timer');
    expect(setting(timer, 'Timer', 'OnCalendar')).toBe('hourly');
    expect(setting(timer, 'Timer', 'RandomizedDelaySec')).toBe('15min');
    expect(setting(timer, 'Timer', 'Persistent')).toBe('true');
    expect(setting(timer, 'Timer', 'Unit')).toBe('agent-janitor.service');
    expect(setting(timer, 'Install', 'WantedBy')).toBe('timers.target');
  });

  it.each(['system', 'user'])('the %s example config is a valid config', (scope) => {
    const result = spawnSync(
      process.execPath,
      [CLI, 'config', '--config', path.join(REPO, 'systemd', scope, 'config.yaml')],
      { encoding: 'utf8' },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('minAge: 1h');
  });
});

/** The system calls of a `@group`, its nested groups expanded, as systemd-analyze lists them. */
function expandSyscallGroup(group: string): Set<string> {
  const listing = spawnSync('systemd-analyze', ['syscall-filter'], { encoding: 'utf8' });
  const groups = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const raw of listing.stdout.split('\n')) {
    const line = raw.trim();
    if (raw.startsWith('@')) {
      current = [];
      groups.set(line, current);
    } else if (current && line !== '' && !line.startsWith('#')) current.push(line);
  }
  const expand = (name: string): string[] =>
    (groups.get(name) ?? []).flatMap((member) => (member.startsWith('@') ? expand(member) : [member]));
  if (!groups.has(group)) throw new Error(`systemd-analyze syscall-filter knows no ${group}`);
  return new Set(expand(group));
}

/** Puts an executable at `bin` below `root`: a real wrapper of the built CLI. */
function placeBinary(root: string, bin: string): void {
  mkdirSync(path.dirname(path.join(root, bin)), { recursive: true });
  writeFileSync(
    path.join(root, bin),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
  );
  chmodSync(path.join(root, bin), 0o755);
}

/** A staging root with systemd's own units and the ExecStart binary at `bin` (none for null). */
function stagingRoot(bin: string | null = '/usr/local/bin/agent-janitor'): string {
  const root = tempDir('aj-systemd-');
  if (bin !== null) placeBinary(root, bin);
  // verify resolves the timer's and service's dependencies (timers.target, sysinit.target...).
  cpSync('/usr/lib/systemd/system', path.join(root, 'usr/lib/systemd/system'), {
    recursive: true,
    verbatimSymlinks: true,
  });
  return root;
}

/** What a staging root holds but for the copy of systemd's own units. */
function inv(root: string) {
  return inventory(root, { exclude: [path.join(root, 'usr/lib')] });
}

function install(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync('bash', [INSTALL, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

function verify(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync('systemd-analyze', args, {
    encoding: 'utf8',
    env: { ...process.env, SYSTEMD_LOG_COLOR: '0', ...env },
  });
}

describe('deploy/install.sh and systemd-analyze verify', () => {
  it('installs the system units and config; verify accepts them without a warning', () => {
    const root = stagingRoot();
    const first = install(['--root', root, '--bin', '/usr/local/bin/agent-janitor']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('installed: /etc/systemd/system/agent-janitor.service');
    expect(first.stdout).toContain('installed: /etc/agent-janitor/config.yaml');
    // With the default binary and config path the installed unit is the shipped one, byte for byte.
    expect(readFileSync(path.join(root, 'etc/systemd/system/agent-janitor.service'), 'utf8')).toBe(
      unitText('system', 'agent-janitor.service'),
    );
    expect(readFileSync(path.join(root, 'etc/agent-janitor/config.yaml'), 'utf8')).toBe(
      unitText('system', 'config.yaml'),
    );
    const checked = verify([
      'verify',
      `--root=${root}`,
      '/etc/systemd/system/agent-janitor.service',
      '/etc/systemd/system/agent-janitor.timer',
    ]);
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  });

  it('verify has teeth: a misspelt setting or a missing binary is reported', () => {
    const root = stagingRoot();
    expect(install(['--root', root, '--bin', '/usr/local/bin/agent-janitor']).status).toBe(0);
    const file = path.join(root, 'etc/systemd/system/agent-janitor.service');
    writeFileSync(file, readFileSync(file, 'utf8').replace('ProtectSystem=strict', 'ProtectSytem=strict'));
    const misspelt = verify(['verify', `--root=${root}`, '/etc/systemd/system/agent-janitor.service']);
    expect(misspelt.stderr).toContain("Unknown key 'ProtectSytem'");
    writeFileSync(
      file,
      unitText('system', 'agent-janitor.service').replace('/usr/local/bin/agent-janitor', '/usr/local/bin/absent'),
    );
    const missing = verify(['verify', `--root=${root}`, '/etc/systemd/system/agent-janitor.service']);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('/usr/local/bin/absent');
  });

  it('is idempotent: a second run changes nothing and keeps the config', () => {
    const root = stagingRoot();
    expect(install(['--root', root, '--bin', '/usr/local/bin/agent-janitor']).status).toBe(0);
    const before = inv(root);
    const again = install(['--root', root, '--bin', '/usr/local/bin/agent-janitor']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('unchanged: /etc/systemd/system/agent-janitor.service');
    expect(again.stdout).toContain('unchanged: /etc/systemd/system/agent-janitor.timer');
    expect(again.stdout).toContain('kept: /etc/agent-janitor/config.yaml');
    expect(diffInventories(before, inv(root))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('--config: an invalid config changes nothing; a valid one replaces the config alone', () => {
    const root = stagingRoot();
    expect(install(['--root', root, '--bin', '/usr/local/bin/agent-janitor']).status).toBe(0);
    const before = inv(root);
    const bad = path.join(tempDir(), 'bad.yaml');
    writeFileSync(bad, 'minAge: 1h\nhomse: ["/home/*"]\n');
    const refused = install(['--root', root, '--bin', '/usr/local/bin/agent-janitor', '--config', bad]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('homse');
    expect(refused.stderr).toContain('nothing was installed');
    expect(diffInventories(before, inv(root))).toEqual({ removed: [], changed: [], added: [] });

    const good = path.join(tempDir(), 'good.yaml');
    writeFileSync(good, 'homes: ["/home/*"]\nminAge: 2h\nprocessCheck: required\n');
    const replaced = install(['--root', root, '--bin', '/usr/local/bin/agent-janitor', '--config', good]);
    expect(replaced.status, replaced.stderr).toBe(0);
    // The config is replaced by a new file, so its folder's mtime moves too.
    expect(diffInventories(before, inv(root))).toEqual({
      removed: [],
      changed: ['etc/agent-janitor', 'etc/agent-janitor/config.yaml'],
      added: [],
    });
    expect(readFileSync(path.join(root, 'etc/agent-janitor/config.yaml'), 'utf8')).toBe(readFileSync(good, 'utf8'));
  });

  it('--bin: ExecStart names the binary given; a missing one is refused before anything is written', () => {
    const root = stagingRoot();
    // Without --root the binary is this system's: it must be there.
    const home = path.join(root, 'home/ana');
    mkdirSync(home, { recursive: true });
    const before = inv(root);
    const refused = install(['--user', '--no-enable', '--bin', '/opt/nowhere/agent-janitor'], {
      HOME: home,
      XDG_CONFIG_HOME: '',
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('/opt/nowhere/agent-janitor is not an executable');
    expect(diffInventories(before, inv(root))).toEqual({ removed: [], changed: [], added: [] });
    mkdirSync(path.join(root, 'opt/aj/bin'), { recursive: true });
    cpSync(path.join(root, 'usr/local/bin/agent-janitor'), path.join(root, 'opt/aj/bin/agent-janitor'));
    const placed = install(['--root', root, '--bin', '/opt/aj/bin/agent-janitor']);
    expect(placed.status, placed.stderr).toBe(0);
    const installed = parseUnit(readFileSync(path.join(root, 'etc/systemd/system/agent-janitor.service'), 'utf8'));
    expect(setting(installed, 'Service', 'ExecStart')).toBe(
      '/opt/aj/bin/agent-janitor run --config /etc/agent-janitor/config.yaml',
    );
    const checked = verify(['verify', `--root=${root}`, '/etc/systemd/system/agent-janitor.service']);
    expect(checked.stderr).toBe('');
  });

  it('--root: --bin is the path on the target system and need not exist below the root', () => {
    // npm's global prefix is /usr on the target, so the command will be /usr/bin/agent-janitor.
    const root = stagingRoot(null);
    const staged = install(['--root', root, '--no-enable', '--bin', '/usr/bin/agent-janitor']);
    expect(staged.status, staged.stderr).toBe(0);
    expect(staged.stdout).toContain(`note: ${root}/usr/bin/agent-janitor does not exist yet`);
    expect(staged.stdout).toContain('installed: /etc/agent-janitor/config.yaml');
    const file = path.join(root, 'etc/systemd/system/agent-janitor.service');
    expect(setting(parseUnit(readFileSync(file, 'utf8')), 'Service', 'ExecStart')).toBe(
      '/usr/bin/agent-janitor run --config /etc/agent-janitor/config.yaml',
    );
    const units = ['/etc/systemd/system/agent-janitor.service', '/etc/systemd/system/agent-janitor.timer'];
    expect(verify(['verify', `--root=${root}`, ...units]).stderr).toContain('/usr/bin/agent-janitor');
    // Once the binary is there, as on the target, the unit as installed passes verify...
    placeBinary(root, '/usr/bin/agent-janitor');
    const checked = verify(['verify', `--root=${root}`, ...units]);
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    // ...where the shipped file alone, naming /usr/local/bin, does not: the installer's rewrite is needed.
    writeFileSync(file, unitText('system', 'agent-janitor.service'));
    const shipped = verify(['verify', `--root=${root}`, units[0] as string]);
    expect(shipped.status).not.toBe(0);
    expect(shipped.stderr).toContain('/usr/local/bin/agent-janitor');
  });

  it('--root with a binary not below it still checks the config before anything is written', () => {
    const root = stagingRoot(null);
    const before = inv(root);
    const bad = path.join(tempDir(), 'bad.yaml');
    writeFileSync(bad, 'minAge: 1h\nhomse: ["/home/*"]\n');
    const refused = install(['--root', root, '--no-enable', '--bin', '/p/agent-janitor', '--config', bad]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('homse');
    expect(refused.stderr).toContain('nothing was installed');
    expect(diffInventories(before, inv(root))).toEqual({ removed: [], changed: [], added: [] });
  });

  it.each(['system', 'user'])(
    'the shipped %s unit says, right above ExecStart, that the installer rewrites it',
    (scope) => {
      const lines = unitText(scope, 'agent-janitor.service').split('\n');
      const at = lines.findIndex((line) => line.startsWith('ExecStart='));
      let start = at;
      while (start > 0 && (lines[start - 1] as string).startsWith('#')) start -= 1;
      const comment = lines.slice(start, at).join(' ');
      expect(comment).toContain('deploy/install.sh');
      expect(comment).toContain('--bin');
      expect(comment).toContain('/usr/bin/agent-janitor');
    },
  );

  it('--user: units for systemd --user that `systemd-analyze --user verify` accepts', () => {
    const root = stagingRoot();
    const home = path.join(root, 'home/ana');
    const runtime = path.join(root, 'run/user/ana');
    mkdirSync(home, { recursive: true });
    mkdirSync(runtime, { recursive: true, mode: 0o700 });
    const bin = path.join(root, 'usr/local/bin/agent-janitor');
    const env = { HOME: home, XDG_CONFIG_HOME: '', XDG_RUNTIME_DIR: runtime };
    const done = install(['--user', '--no-enable', '--bin', bin], env);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain('skipped: systemctl --user enable --now agent-janitor.timer');
    const unitDir = path.join(home, '.config/systemd/user');
    const installed = parseUnit(readFileSync(path.join(unitDir, 'agent-janitor.service'), 'utf8'));
    expect(setting(installed, 'Service', 'ExecStart')).toBe(
      `${bin} run --config ${home}/.config/agent-janitor/config.yaml`,
    );
    expect(readFileSync(path.join(home, '.config/agent-janitor/config.yaml'), 'utf8')).toBe(
      unitText('user', 'config.yaml'),
    );
    const checked = verify(
      ['--user', 'verify', path.join(unitDir, 'agent-janitor.service'), path.join(unitDir, 'agent-janitor.timer')],
      env,
    );
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    const before = inv(root);
    expect(install(['--user', '--no-enable', '--bin', bin], env).status).toBe(0);
    expect(diffInventories(before, inv(root))).toEqual({ removed: [], changed: [], added: [] });
  });

  it('--uninstall removes the units and keeps the config', () => {
    const root = stagingRoot();
    expect(install(['--root', root, '--bin', '/usr/local/bin/agent-janitor']).status).toBe(0);
    const removed = install(['--root', root, '--uninstall']);
    expect(removed.status, removed.stderr).toBe(0);
    const after = inv(root);
    expect(after.has('etc/systemd/system/agent-janitor.service')).toBe(false);
    expect(after.has('etc/systemd/system/agent-janitor.timer')).toBe(false);
    expect(after.has('etc/agent-janitor/config.yaml')).toBe(true);
  });
});
