import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sessionName } from '../../../src/providers/watchfire/slug.js';
import { quarantineName } from '../../../src/safety/removal/quarantine.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { spawnLiving } from '../../helpers/processes.js';
import {
  addKiloWorktree,
  makeKiloDb,
  makeRepo as makeKiloRepo,
  makeSnapshot,
  pinOf,
  projectIdOf,
  removeKiloWorktree,
} from '../../providers/kilo/fixtures.js';
import { addJob, addProject, createOwlDb } from '../../providers/owl/owl-db.js';
import { jobWorktree, owlHome } from '../../providers/owl/scenario.js';
import { deadPid, writeSessionLog, type Machine, type Project } from '../../providers/watchfire/fixture.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';
import { adminDirOf } from './compare.js';

/** mulberry32: a small seeded generator, so a failing fleet is rebuilt exactly from its seed. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Dice {
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  int(min: number, max: number): number;
}

function dice(seed: number): Dice {
  const next = rng(seed);
  return {
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}

/**
 * A random machine, each item built in a state whose fate the providers' rules decide, so that the set
 * of folders a pass must remove is known by construction: `doomed` (with what goes with them:
 * admin entries, worktree-config folders, pins) must be gone after the pass, every other byte
 * must remain.
 */
export interface RandomFleet {
  dir: string;
  runDir: string;
  homes: string[];
  config: Record<string, unknown>;
  /** Folders and files the pass must remove, each with the kind of state that dooms it. */
  doomed: Map<string, string>;
  /** Items that must stay, with the kind of state that keeps them. */
  spared: Map<string, string>;
  /** Paths that go with a doomed item by its owner's rule (admin entries, worktree-config, pins). */
  alongside: string[];
  /** Kilo's lock folders (made and removed while deleting). */
  lockRoots: string[];
  summary: string[];
}

const WORDS = ['alpha', 'billing', 'checkout', 'docs', 'edge', 'feed', 'gamma', 'ünï', 'sp ace', '-dash', '✨', 'x..y'];
const BACKENDS = ['codex', 'copilot', 'cursor', 'gemini', 'opencode', 'zed'];
const MODES = ['chat', 'task', 'start-all', 'wildfire-execute', 'gen-tasks', 'agent'] as const;

export async function randomFleet(dir: string, seed: number): Promise<RandomFleet> {
  const d = dice(seed);
  const runDir = path.join(dir, 'run');
  mkdirSync(runDir, { recursive: true });
  const fleet: RandomFleet = {
    dir,
    runDir,
    homes: [],
    config: {},
    doomed: new Map(),
    spared: new Map(),
    alongside: [],
    lockRoots: [],
    summary: [],
  };
  const homeCount = d.int(1, 2);
  let serial = 0;
  const sets: Array<{ name: string; roots: string[]; idleAfter: string }> = [];
  for (let h = 0; h < homeCount; h += 1) {
    const home = path.join(dir, 'homes', `user${h}`);
    fleet.homes.push(home);
    mkdirSync(home, { recursive: true });
    await watchfire(d, home, fleet, () => (serial += 1));
    if (d.chance(0.5)) worktrees(d, home, fleet, sets);
    if (d.chance(0.4)) owl(d, home, fleet);
    if (d.chance(0.4)) kilo(d, home, fleet);
  }
  fleet.config = {
    homes: fleet.homes,
    minAge: '1h',
    reportDir: path.join(runDir, 'report'),
    providers: { worktrees: { sets } },
  };
  return fleet;
}

/** One Watchfire root: a live or dead daemon, one project per home so that no proof is shared. */
async function watchfire(d: Dice, home: string, fleet: RandomFleet, next: () => number): Promise<void> {
  const root = path.join(home, '.watchfire');
  const m: Machine = { dir: home, home, root, runDir: fleet.runDir, reportDir: '' };
  mkdirSync(root, { recursive: true });
  const live = d.chance(0.5);
  const projects: Array<Project & { index: number }> = [];
  const agents: Project[] = [];
  const fresh: string[] = [];
  const logs: Array<{ project: Project }> = [];
  const count = d.int(3, 9);
  for (let i = 0; i < count; i += 1) {
    const n = next();
    const name = `P${String(n).padStart(4, '0')} ${d.pick(WORDS)}`;
    const project: Project = { id: `0b7e5d1c-94a2-4f1e-9a57-${String(n).padStart(12, '0')}`, name };
    const kinds = [
      'deleted-project',
      'deleted-project-young',
      'unexported',
      'failed-start',
      'exported',
      'quarantine',
      'foreign-name',
      live ? 'running' : 'interrupted',
    ];
    const kind = d.pick(kinds);
    const backend = d.pick(BACKENDS);
    const mode = d.pick(MODES);
    const folder = sessionName(
      mode === 'task'
        ? { projectName: name, mode, task: { number: n, title: d.pick(WORDS) } }
        : { projectName: name, mode },
    );
    const at = path.join(
      root,
      `${backend}-home`,
      kind === 'foreign-name' ? `${d.pick(WORDS)} no session` : kind === 'quarantine' ? quarantineName(folder) : folder,
    );
    if (kind === 'failed-start') {
      put(path.join(at, 'AGENTS.md'), '# Watchfire system prompt\n');
      mkdirSync(path.join(at, 'sessions'), { recursive: true });
      symlinkSync(path.join(home, '.codex', 'auth.json'), path.join(at, 'auth.json'));
    } else {
      put(path.join(at, 'AGENTS.md'), '# Watchfire system prompt\n');
      put(path.join(at, 'sessions', `rollout-${n}.jsonl`), `{"turn":${n}}\n`);
    }
    if (!['deleted-project', 'deleted-project-young', 'quarantine'].includes(kind))
      projects.push({ ...project, index: i });
    if (kind === 'running' || kind === 'interrupted') agents.push(project);
    if (kind === 'exported') logs.push({ project });
    if (kind === 'deleted-project-young') fresh.push(at);
    const doomed = ['deleted-project', 'failed-start', 'exported', 'quarantine'].includes(kind);
    (doomed ? fleet.doomed : fleet.spared).set(at, `watchfire ${kind}${live ? ', daemon live' : ''}`);
  }
  put(path.join(home, '.codex', 'auth.json'), '{"token":"user secret"}\n');
  const lines = ['version: 1', projects.length === 0 ? 'projects: []' : 'projects:'];
  for (const [index, p] of projects.entries()) {
    lines.push(
      `    - project_id: ${p.id}`,
      `      name: ${JSON.stringify(p.name)}`,
      `      path: /src/${index}`,
      `      position: ${index}`,
    );
  }
  writeFileSync(path.join(root, 'projects.yaml'), `${lines.join('\n')}\n`);
  if (agents.length > 0) {
    const agentLines = ['version: 1', 'agents:'];
    for (const agent of agents)
      agentLines.push(
        `    - project_id: ${agent.id}`,
        `      project_name: ${JSON.stringify(agent.name)}`,
        '      project_path: /src/x',
        '      mode: chat',
      );
    writeFileSync(path.join(root, 'agents.yaml'), `${agentLines.join('\n')}\n`);
  }
  put(path.join(root, 'daemon.lock'), '');
  const pid = live ? (spawnLiving('sleep', ['600']).pid as number) : await deadPid();
  writeFileSync(
    path.join(root, 'daemon.yaml'),
    `version: 1\nhost: localhost\nport: 50051\npid: ${pid}\nstarted_at: 2026-11-27T08:00:00Z\n`,
  );
  backdate(home, daysAgo(4));
  // Each exported home's project has a log that ended after the home's last write.
  for (const { project } of logs) writeSessionLog(m, project, daysAgo(3));
  if (logs.length > 0) backdate(path.join(root, 'logs'), daysAgo(3));
  for (const young of fresh) put(path.join(young, 'sessions', 'just-now.jsonl'), '{}\n');
  fleet.summary.push(`watchfire ${root}: daemon ${live ? 'live' : 'dead'}, ${count} homes`);
}

/** One repository whose worktrees sit in a set's root, each in a state the set rule decides. */
function worktrees(
  d: Dice,
  home: string,
  fleet: RandomFleet,
  sets: Array<{ name: string; roots: string[]; idleAfter: string }>,
): void {
  const repo = makeRepo(path.join(home, 'code', 'api'));
  const root = path.join(home, 'agent-worktrees');
  const count = d.int(1, 4);
  const young: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = d.pick([
      'merged',
      'pushed',
      'merged-with-ignored',
      'dirty',
      'untracked',
      'detached-unique',
      'locked',
      'young',
    ]);
    const folder = path.join(root, `${kind}-${i} ${d.pick(WORDS)}`);
    const branch = `agent/${i}`;
    addWorktree(repo, folder, branch);
    const head = commitFile(folder, `work-${i}.txt`, `work ${i}\n`);
    if (kind === 'merged' || kind === 'merged-with-ignored' || kind === 'young')
      sh(repo, 'branch', '-f', `merged/${i}`, head);
    if (kind === 'merged-with-ignored') put(path.join(folder, 'build.log'), 'ignored output\n');
    if (kind === 'pushed') sh(repo, 'update-ref', `refs/remotes/origin/agent/${i}`, head);
    if (kind === 'dirty') put(path.join(folder, `work-${i}.txt`), 'changed, not committed\n');
    if (kind === 'untracked') put(path.join(folder, 'new-file.ts'), 'export {};\n');
    if (kind === 'detached-unique') {
      sh(folder, 'checkout', '-q', '--detach');
      sh(repo, 'branch', '-q', '-D', branch);
      commitFile(folder, 'only-here.txt', 'the only copy\n');
    }
    if (kind === 'locked') {
      sh(repo, 'branch', '-f', `merged/${i}`, head);
      sh(repo, 'worktree', 'lock', '--reason', 'agent running', folder);
    }
    if (kind === 'young') young.push(folder);
    const doomed = ['merged', 'pushed', 'merged-with-ignored'].includes(kind);
    (doomed ? fleet.doomed : fleet.spared).set(folder, `worktree ${kind}`);
    if (doomed) fleet.alongside.push(adminDirOf(folder) as string);
  }
  backdate(repo, daysAgo(5));
  backdate(root, daysAgo(5));
  // Worked on yesterday: older than minAge, younger than the set's idleAfter.
  for (const folder of young) put(path.join(folder, 'notes.md'), 'still going\n');
  for (const folder of young) backdate(folder, daysAgo(1));
  sets.push({ name: `agents-${sets.length}`, roots: [root], idleAfter: '3d' });
  fleet.summary.push(`worktrees ${root}: ${count}`);
}

/** Coding Owl with a job per worktree in a random state of ADR-0015. */
function owl(d: Dice, home: string, fleet: RandomFleet): void {
  // Owl's fixture makes a home of its own (<root>/home), which joins the pass's homes.
  const owlRoot = path.join(home, 'owl-world');
  const h = owlHome(owlRoot);
  fleet.homes.push(h.home);
  const db = createOwlDb(h.db);
  addProject(db, 'app', h.repo);
  const count = d.int(1, 3);
  for (let id = 1; id <= count; id += 1) {
    const kind = d.pick(['done', 'cancelled', 'done-dirty', 'review', 'pending']);
    const state = kind === 'done-dirty' ? 'done' : kind;
    const folder = jobWorktree(h, id);
    addJob(db, { id, state, worktree: folder, branch: `owl/job-${id}` });
    if (kind === 'done-dirty') put(path.join(folder, `job-${id}.txt`), 'edited, not committed\n');
    const doomed = kind === 'done' || kind === 'cancelled';
    (doomed ? fleet.doomed : fleet.spared).set(folder, `owl job ${kind}`);
    if (doomed) fleet.alongside.push(adminDirOf(folder) as string, h.config(id));
  }
  db.close();
  backdate(owlRoot, daysAgo(3));
  fleet.summary.push(`owl ${h.data}: ${count} jobs`);
}

/** Kilo checkpoint repositories of live and removed managed worktrees. */
function kilo(d: Dice, home: string, fleet: RandomFleet): void {
  const data = path.join(home, '.local', 'share', 'kilo');
  const state = path.join(home, '.local', 'state', 'kilo');
  mkdirSync(data, { recursive: true });
  const repo = makeKiloRepo(path.join(home, 'projects', 'kilo-app'));
  const projectId = projectIdOf(repo);
  const count = d.int(1, 3);
  const live: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const kind = d.pick(['removed', 'removed-seeded', 'live']);
    const worktree = addKiloWorktree(repo, `wt-${i}`);
    const gitdir = makeSnapshot(data, projectId, worktree, kind === 'removed-seeded' ? { seededFrom: repo } : {});
    if (kind === 'live') live.push(worktree);
    else removeKiloWorktree(repo, worktree);
    (kind === 'live' ? fleet.spared : fleet.doomed).set(gitdir, `kilo ${kind}`);
    if (kind === 'removed-seeded') fleet.alongside.push(path.join(repo, '.git', pinOf(gitdir)));
  }
  makeKiloDb(path.join(data, 'kilo.db'), { projects: [{ id: projectId, worktree: repo, sandboxes: live }] });
  backdate(data, daysAgo(3));
  backdate(repo, daysAgo(3));
  // Taking Kilo's lock makes <state>/locks (and the folders above it, where missing).
  fleet.lockRoots.push(path.join(state, 'locks'), state, path.dirname(state));
  fleet.summary.push(`kilo ${data}: ${count} repositories`);
}
