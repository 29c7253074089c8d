import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { backdate, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory, type Entry } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import type { PassResult } from '../../../src/pass/pass.js';
import { sessionName, type SessionNameParts } from '../../../src/providers/watchfire/slug.js';

/** A fake machine for one test: a temp folder holding one user's home and its `.watchfire`. */
export interface Machine {
  dir: string;
  home: string;
  root: string;
  /** Where the pass's config file and report go: left out of every inventory. */
  runDir: string;
  reportDir: string;
}

export function machine(options: { withRoot?: boolean } = {}): Machine {
  const dir = tempDir('aj-watchfire-');
  const home = path.join(dir, 'home', 'ana');
  const root = path.join(home, '.watchfire');
  mkdirSync(options.withRoot === false ? home : root, { recursive: true });
  const runDir = path.join(dir, 'run');
  mkdirSync(runDir);
  return { dir, home, root, runDir, reportDir: path.join(runDir, 'report') };
}

/** Every entry of the machine but the run folder. */
export function snapshot(m: Machine): Map<string, Entry> {
  return inventory(m.dir, { exclude: [m.runDir] });
}

/**
 * Asserts that between two snapshots exactly the `targets` trees went (every entry in them, no
 * entry outside them), that nothing was added, and that nothing changed but the mtime of the
 * folders that held them.
 */
export function expectOnlyRemoved(
  m: Machine,
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  targets: string[],
): void {
  const relative = targets.map((target) => path.relative(m.dir, target));
  const inside = (key: string) => relative.some((r) => key === r || key.startsWith(`${r}${path.sep}`));
  const diff = diffInventories(before, after);
  expect(diff.added).toEqual([]);
  expect(diff.removed.filter((key) => !inside(key))).toEqual([]);
  expect([...before.keys()].filter((key) => inside(key) && after.has(key))).toEqual([]);
  for (const r of relative) expect(before.has(r), `${r} existed before the pass`).toBe(true);
  const parents = new Set(relative.map((r) => path.dirname(r)));
  expect(diff.changed.filter((key) => !parents.has(key))).toEqual([]);
  for (const key of diff.changed) expect(after.get(key)?.type).toBe('dir');
}

/** Asserts that nothing at all changed between two snapshots. */
export function expectUnchanged(before: Map<string, Entry>, after: Map<string, Entry>): void {
  expect(diffInventories(before, after)).toEqual({ removed: [], changed: [], added: [] });
}

/** The config a pass over this machine runs with. */
export function configFor(m: Machine, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { homes: [m.home], minAge: '1h', reportDir: m.reportDir, ...extra };
}

/** One in-process pass of the watchfire provider over the machine. */
export function passOver(
  m: Machine,
  options: { reportOnly?: boolean; config?: Record<string, unknown>; clock?: () => Date } = {},
): Promise<PassResult> {
  return pass({
    dir: m.runDir,
    config: configFor(m, options.config),
    reportOnly: options.reportOnly,
    only: ['watchfire'],
    clock: options.clock,
  });
}

export interface Project {
  id: string;
  name: string;
}

let counter = 0;
/** A project with a fresh UUID-shaped id. */
export function project(name: string): Project {
  counter += 1;
  const hex = (counter + Math.floor(Math.random() * 0xffff) * 0x10000).toString(16).padStart(12, '0').slice(-12);
  return { id: `0b7e5d1c-94a2-4f1e-9a57-${hex}`, name };
}

/** `projects.yaml` as Watchfire's YAML encoder writes it (four-space list indent). */
export function writeProjects(m: Machine, projects: Project[]): void {
  const lines = ['version: 1', projects.length === 0 ? 'projects: []' : 'projects:'];
  projects.forEach((p, index) => {
    lines.push(
      `    - project_id: ${p.id}`,
      `      name: ${JSON.stringify(p.name)}`,
      `      path: /home/ana/src/${index}`,
      `      position: ${index}`,
    );
  });
  writeFileSync(path.join(m.root, 'projects.yaml'), `${lines.join('\n')}\n`);
}

export function writeAgents(
  m: Machine,
  agents: Array<{ project: Project; mode: string; task?: { number: number; title: string } }>,
): void {
  const lines = ['version: 1', 'agents:'];
  for (const agent of agents) {
    lines.push(
      `    - project_id: ${agent.project.id}`,
      `      project_name: ${JSON.stringify(agent.project.name)}`,
      `      project_path: /home/ana/src/x`,
      `      mode: ${agent.mode}`,
    );
    if (agent.task)
      lines.push(`      task_number: ${agent.task.number}`, `      task_title: ${JSON.stringify(agent.task.title)}`);
  }
  writeFileSync(path.join(m.root, 'agents.yaml'), `${lines.join('\n')}\n`);
}

export function writeDaemon(m: Machine, pid: number): void {
  writeFileSync(
    path.join(m.root, 'daemon.yaml'),
    `version: 1\nhost: localhost\nport: 50123\npid: ${pid}\nstarted_at: 2026-11-28T09:00:00Z\n`,
  );
}

/** The lock file the daemon creates once and never removes. */
export function daemonLock(m: Machine): string {
  return put(path.join(m.root, 'daemon.lock'), '');
}

/** A session log with its `---` header, as Watchfire writes it when a session ends. */
export function writeSessionLog(
  m: Machine,
  p: Project,
  endedAt: Date,
  options: { mode?: string; status?: string } = {},
): string {
  const started = new Date(endedAt.getTime() - 20 * 60_000);
  const mode = options.mode ?? 'chat';
  const logId = `${mode}-0-${started.toISOString().slice(0, 19).replace(/:/g, '-')}`;
  const file = path.join(m.root, 'logs', p.id, `${logId}.log`);
  const header = [
    '---',
    `project_id: ${p.id}`,
    'task_number: 0',
    'session_number: 1',
    'agent: codex',
    `mode: ${mode}`,
    `started_at: ${started.toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `ended_at: ${endedAt.toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `status: ${options.status ?? 'completed'}`,
    '---',
    '## User',
    '',
    'Do the thing.',
    '',
  ].join('\n');
  put(file, header);
  put(file.replace(/\.log$/, '.jsonl'), '{"type":"message"}\n');
  return file;
}

/** The other things Watchfire keeps in its root, which a pass must never touch. */
export function writeWatchfireExtras(m: Machine, p: Project): void {
  put(path.join(m.root, 'logs', p.id, 'daemon.log'), 'daemon started\n');
  put(path.join(m.root, 'diff-cache', 'abc.json'), '{}');
  put(path.join(m.root, 'insights-cache', 'x.json'), '{}');
  put(path.join(m.root, 'digests', '2026-11-29.md'), '# digest');
  put(path.join(m.root, 'settings.yaml'), 'version: 1\n');
}

export type HomeContents = 'codex-session' | 'prompt-only' | 'opencode-session';

/**
 * A session home as a backend leaves it. `codex-session` holds a rollout transcript; `prompt-only`
 * holds the prompt, config symlinks and an empty folder (a start that failed).
 */
export function makeHome(
  m: Machine,
  backend: string,
  name: string | SessionNameParts,
  contents: HomeContents = 'codex-session',
): string {
  const folder = typeof name === 'string' ? name : sessionName(name);
  const home = path.join(m.root, `${backend}-home`, folder);
  put(path.join(home, 'AGENTS.md'), '# Watchfire system prompt\n');
  if (contents === 'codex-session') {
    put(
      path.join(home, 'sessions', '2026', '11', '28', 'rollout-2026-11-28T09-00-00-abc.jsonl'),
      '{"type":"session_meta"}\n{"type":"message"}\n',
    );
  } else if (contents === 'opencode-session') {
    put(path.join(home, 'data', 'storage', 'message', 'ses_1', 'msg_01.json'), '{"role":"user"}');
  } else {
    mkdirSync(path.join(home, 'sessions'), { recursive: true });
  }
  return home;
}

/** The user's real Codex and opencode config, which homes link into and which must never change. */
export function userConfig(m: Machine): { codex: string; opencode: string } {
  const codex = path.join(m.home, '.codex');
  put(path.join(codex, 'auth.json'), '{"token":"secret"}');
  put(path.join(codex, 'config.toml'), 'model = "o3"\n');
  put(path.join(codex, 'sessions', '2026', '11', '01', 'rollout-own.jsonl'), '{"own":true}\n');
  const opencode = path.join(m.home, '.config', 'opencode');
  put(path.join(opencode, 'opencode.json'), '{"model":"x"}');
  put(path.join(opencode, 'auth.json'), '{"key":"k"}');
  put(path.join(opencode, 'agent', 'reviewer.md'), '# reviewer');
  put(path.join(opencode, 'command', 'ship.md'), '# ship');
  put(path.join(opencode, 'plugin', 'deep', 'index.js'), 'export {}');
  return { codex, opencode };
}

/** Links a home's config entries to the user's config, as Watchfire's backends do at a start. */
export function linkCodexConfig(home: string, codex: string): void {
  for (const name of ['auth.json', 'config.toml']) symlinkSync(path.join(codex, name), path.join(home, name));
}

/** opencode's `config/` holds a link to every entry of `~/.config/opencode`, folders included. */
export function linkOpencodeConfig(home: string, opencode: string, entries: string[]): void {
  mkdirSync(path.join(home, 'config'), { recursive: true });
  for (const name of entries) {
    if (name === 'opencode.json' || name === 'AGENTS.md') continue;
    symlinkSync(path.join(opencode, name), path.join(home, 'config', name));
  }
  writeFileSync(path.join(home, 'config', 'AGENTS.md'), '# Watchfire system prompt\n');
  writeFileSync(path.join(home, 'config', 'opencode.json'), '{"permission":"allow"}');
}

/** Ages everything in the machine (the report dir aside) so minAge does not hide it. */
export function ageAll(m: Machine, when: Date): void {
  backdate(m.home, when);
}

/** A pid that certainly belonged to a process which has exited (and was reaped). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid as number;
  await new Promise((resolve) => child.on('exit', resolve));
  // Reaping happens right after 'exit'; wait until the kernel agrees the pid is free.
  for (let i = 0; i < 100; i += 1) {
    try {
      process.kill(pid, 0);
    } catch {
      return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`pid ${pid} is still alive`);
}
