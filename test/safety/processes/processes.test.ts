import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, processesInside, scanProcesses } from '../../../src/safety/processes/processes.js';
import { sleeperIn, spawnLiving, waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';

describe('the /proc scan', () => {
  it("looks at only this process's own children and theirs when scoped to its own, and at every process otherwise", async () => {
    const cwd = tempDir();
    const child = sleeperIn(cwd);
    // A shell that starts a sleep and exits: the sleep is handed to another parent, no longer below us.
    const orphan = Number(execFileSync('sh', ['-c', 'sleep 600 >/dev/null 2>&1 & echo $!'], { cwd }).toString());
    try {
      await waitFor(() => (scanProcesses().occupied.get(cwd)?.size ?? 0) >= 2);
      const own = scanProcesses('/proc', undefined, [], 'own');
      expect(own.visible).toBe(true);
      expect([...(own.occupied.get(cwd) ?? [])]).toEqual([child.pid]);
      expect(own.records.has(orphan)).toBe(false);
      const machine = scanProcesses('/proc', undefined, [], 'machine');
      expect([...(machine.occupied.get(cwd) ?? [])].sort()).toEqual([child.pid, orphan].sort());
    } finally {
      process.kill(orphan, 'SIGKILL');
    }
  });

  it('finds a process whose working directory is inside a folder, and none in a sibling', async () => {
    const base = tempDir();
    const busy = path.join(base, 'busy');
    const idle = path.join(base, 'idle');
    mkdirSync(path.join(busy, 'deep', 'er'), { recursive: true });
    mkdirSync(idle);
    const child = sleeperIn(path.join(busy, 'deep', 'er'));
    await waitFor(() => scanProcesses().occupied.has(path.join(busy, 'deep', 'er')));
    const table = scanProcesses();
    expect(table.visible).toBe(true);
    expect(table.inspected).toBeGreaterThan(1);
    expect(processesInside(table, busy)).toContain(child.pid);
    expect(processesInside(table, idle)).toEqual([]);
    // A prefix is not containment: busy-other is not inside busy.
    mkdirSync(`${busy}-other`);
    expect(processesInside(table, `${busy}-other`)).toEqual([]);
  });

  it('finds a process holding an open file inside, and one running a binary mapped from inside', async () => {
    const base = tempDir();
    const withFile = path.join(base, 'with-file');
    const withMap = path.join(base, 'with-map');
    mkdirSync(withFile);
    mkdirSync(withMap);
    writeFileSync(path.join(withFile, 'held.log'), 'x');
    const fd = openSync(path.join(withFile, 'held.log'), 'r');
    const holder = spawn('sleep', ['600'], { stdio: [fd, 'ignore', 'ignore'], cwd: '/' });
    copyFileSync('/bin/sleep', path.join(withMap, 'agent-binary'));
    execFileSync('chmod', ['+x', path.join(withMap, 'agent-binary')]);
    const mapped = spawnLiving(path.join(withMap, 'agent-binary'), ['600']);
    try {
      await waitFor(() => processesInside(scanProcesses(), withMap).length > 0);
      const table = scanProcesses();
      // The open file is found by identity (its path is read only once it is deleted), the mapping by both.
      const held = statSync(path.join(withFile, 'held.log'));
      expect(table.identities.holdersOf(held.dev, held.ino)).toContain(holder.pid);
      expect(processesInside(table, withFile)).not.toContain(holder.pid);
      const binary = statSync(path.join(withMap, 'agent-binary'));
      expect(table.identities.holdersOf(binary.dev, binary.ino)).toContain(mapped.pid);
      expect(processesInside(table, withMap)).toContain(mapped.pid);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('leaves its own process out', () => {
    const table = scanProcesses();
    expect(processesInside(table, process.cwd())).not.toContain(process.pid);
  });

  it('says processes are invisible from a PID namespace of its own', () => {
    const script = `import('${path.resolve('dist/safety/processes/processes.js')}').then((m) => { const t = m.scanProcesses(); process.stdout.write(JSON.stringify({ visible: t.visible, blindBecause: t.blindBecause, why: t.why })); })`;
    const out = execFileSync(
      'unshare',
      ['--pid', '--fork', '--mount-proc', process.execPath, '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const result = JSON.parse(out) as { visible: boolean; blindBecause: string; why: string };
    expect(result.visible).toBe(false);
    expect(result.blindBecause).toBe('own-pid-namespace');
    expect(result.why).toMatch(/PID namespace/);
  });

  it('says processes are invisible without a /proc', () => {
    const table = scanProcesses(path.join(tempDir(), 'no-proc'));
    expect(table).toMatchObject({ visible: false, blindBecause: 'not-procfs', inspected: 0 });
  });
});

describe('isProcessAlive', () => {
  it('counts a process dead only once the kernel says so', async () => {
    const child = spawn('sleep', ['600']);
    const pid = child.pid as number;
    expect(isProcessAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    await waitFor(() => !isProcessAlive(pid));
    expect(isProcessAlive(pid)).toBe(false);
    expect(isProcessAlive(1)).toBe(true);
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-5)).toBe(false);
  });
});
