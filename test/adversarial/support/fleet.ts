import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { SandboxContext, SandboxExtras } from '../../../src/provider-api/sandbox.js';
import { owlSandbox } from '../../../src/providers/owl/demo.js';
import { watchfireSandbox } from '../../../src/providers/watchfire/demo.js';
import { worktreesSandbox } from '../../../src/providers/worktrees/demo.js';
import { quarantineName } from '../../../src/safety/removal/quarantine.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import {
  addKiloWorktree,
  makeKiloDb,
  makeRepo,
  makeSnapshot,
  projectIdOf,
  removeKiloWorktree,
} from '../../providers/kilo/fixtures.js';

/**
 * A machine with scratch of every provider in it, built from each provider's own sandbox builder
 * (Watchfire, Owl, agent worktrees) and Kilo's test fixtures, plus one large dead tree whose
 * delete takes long enough to be interrupted. `fleet` holds everything a pass may touch; `run`
 * (config and report) lies beside it, outside every inventory.
 */
export interface Fleet {
  base: string;
  fleet: string;
  home: string;
  run: string;
  reportDir: string;
  configFile: string;
  /** The dead session home with many files (a deleted project's). */
  bigTree: string;
  /** File names inside the big tree's `history/day-NNN/` folders (names unique across the fleet). */
  bigTreeFiles: string[];
  /** The Kilo owner repository and the checkpoint repositories the pass should delete. */
  kilo: { repo: string; data: string; state: string; doomed: string[] };
  /** The environment the CLI runs with: the fleet's home, none of the caller's XDG folders. */
  env: NodeJS.ProcessEnv;
}

export interface FleetOptions {
  /** Files in the big tree (spread over folders of 50). */
  bigTreeFiles?: number;
}

export async function buildFleet(base: string, options: FleetOptions = {}): Promise<Fleet> {
  const fleet = path.join(base, 'fleet');
  const home = path.join(fleet, 'home');
  const run = path.join(base, 'run');
  mkdirSync(home, { recursive: true });
  mkdirSync(run, { recursive: true });
  const old = daysAgo(3);
  const ctx: SandboxContext = { root: fleet, home, old };
  const extras: SandboxExtras[] = [];
  for (const builder of [watchfireSandbox, owlSandbox, worktreesSandbox]) extras.push((await builder.build(ctx)) ?? {});

  const bigTree = path.join(home, '.watchfire', 'codex-home', 'retired-monolith:chat');
  const bigTreeFiles = writeBigTree(bigTree, options.bigTreeFiles ?? 1500);
  backdate(bigTree, old);

  const kilo = buildKilo(home);
  const reportDir = path.join(run, 'report');
  const configFile = path.join(run, 'agent-janitor.yaml');
  let config: Record<string, unknown> = { homes: [home], minAge: '1h', reportDir };
  for (const extra of extras) if (extra.config) config = merge(config, extra.config);
  writeFileSync(configFile, stringify(config));
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    XDG_DATA_HOME: '',
    XDG_STATE_HOME: '',
    XDG_RUNTIME_DIR: '',
    KILO_DB: '',
    OPENCODE_DB: '',
  };
  return { base, fleet, home, run, reportDir, configFile, bigTree, bigTreeFiles, kilo, env };
}

function writeBigTree(root: string, files: number): string[] {
  put(path.join(root, 'AGENTS.md'), '# Watchfire system prompt\n');
  const names: string[] = [];
  for (let i = 0; i < files; i += 1) {
    const name = `rollout-${String(i).padStart(6, '0')}.jsonl`;
    put(path.join(root, 'history', `day-${String(Math.floor(i / 50)).padStart(3, '0')}`, name), `{"turn":${i}}\n`);
    names.push(name);
  }
  return names;
}

/**
 * Kilo: an owner repository with a live managed worktree (its checkpoint repository is kept), two
 * removed ones (their repositories go, one seeded with a pin in the owner), a quarantine an
 * earlier cleanup left, and the Agent Manager's half-deleted worktree.
 */
function buildKilo(home: string): Fleet['kilo'] {
  const data = path.join(home, '.local', 'share', 'kilo');
  const state = path.join(home, '.local', 'state', 'kilo');
  mkdirSync(data, { recursive: true });
  mkdirSync(state, { recursive: true });
  const repo = makeRepo(path.join(home, 'projects', 'kilo-app'));
  const projectId = projectIdOf(repo);
  makeSnapshot(data, projectId, repo);
  const live = addKiloWorktree(repo, 'live-feature');
  makeSnapshot(data, projectId, live, { seededFrom: repo });
  const doomed: string[] = [];
  for (const name of ['merged-feature', 'abandoned-spike']) {
    const worktree = addKiloWorktree(repo, name);
    doomed.push(makeSnapshot(data, projectId, worktree, { seededFrom: name === 'merged-feature' ? repo : undefined }));
    removeKiloWorktree(repo, worktree);
  }
  const leftover = path.join(data, 'snapshot', projectId, quarantineName('0'.repeat(40)));
  put(path.join(leftover, 'objects', 'pack', 'pack-left.pack'), Buffer.alloc(4096, 1));
  put(
    path.join(repo, '.kilo', 'worktrees', '.kilo-delete-6f9619ff-8b86-4011-b42d-00c04fc964ff', 'src', 'half.ts'),
    'export {};\n',
  );
  makeKiloDb(path.join(data, 'kilo.db'), {
    projects: [{ id: projectId, worktree: repo, sandboxes: [live] }],
    sessions: [{ projectId, directory: live }],
  });
  backdate(path.join(home, '.local'), daysAgo(3));
  backdate(repo, daysAgo(3));
  return { repo, data, state, doomed };
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    const plain = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v);
    out[key] = plain(existing) && plain(value) ? merge(existing, value) : value;
  }
  return out;
}

/** A byte-exact copy of the fleet (modes, times, links, hard links), kept beside it. */
export function saveFleet(f: Fleet): string {
  const pristine = path.join(f.base, 'pristine');
  execFileSync('cp', ['-a', f.fleet, pristine]);
  return pristine;
}

/**
 * Puts the pristine copy back at the fleet's own path, so that every absolute path inside (git's
 * worktree links, core.worktree, owl.db rows) stays true; the report folder starts empty.
 */
export function restoreFleet(f: Fleet, pristine: string): void {
  execFileSync('rm', ['-rf', f.fleet, f.reportDir]);
  execFileSync('cp', ['-a', pristine, f.fleet]);
}

export function cliArgs(f: Fleet, extra: string[] = []): string[] {
  return ['run', '--config', f.configFile, '--json', '--log-level', 'warn', ...extra];
}
