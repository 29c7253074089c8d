import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { quarantineName } from '../../../src/safety/removal/quarantine.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory, type Entry } from '../../helpers/inventory.js';
import {
  addKiloWorktree,
  makeKiloDb,
  makeRepo as makeKiloRepo,
  makeSnapshot,
  projectIdOf,
  removeKiloWorktree,
} from '../../providers/kilo/fixtures.js';
import { addJob, addProject, createOwlDb } from '../../providers/owl/owl-db.js';
import { jobWorktree, owlHome, type OwlHome } from '../../providers/owl/scenario.js';
import { writeProjects, type Machine } from '../../providers/watchfire/fixture.js';

/**
 * One home with Watchfire, Kilo and Owl installed (Kilo or Owl may be left out), each holding one
 * item its owner proves dead and one quarantine an earlier pass left; the run folder lies beside
 * the home, outside inventories.
 */
export interface MixedHome {
  dir: string;
  home: string;
  runDir: string;
  watchfire: { root: string; dead: string };
  owl: (OwlHome & { done: string; quarantine: string }) | null;
  kilo: {
    data: string;
    state: string;
    repo: string;
    dead: string;
    quarantine: string;
    db: string;
    managerFile: string;
  } | null;
  snapshot(): Map<string, Entry>;
  key(p: string): string;
  config: Record<string, unknown>;
}

export function mixedHome(dir: string, install: { owl?: boolean; kilo?: boolean } = {}): MixedHome {
  const world = path.join(dir, 'world');
  const home = path.join(world, 'home');
  const runDir = path.join(dir, 'run');
  mkdirSync(runDir, { recursive: true });

  const wfRoot = path.join(home, '.watchfire');
  mkdirSync(wfRoot, { recursive: true });
  const m: Machine = { dir: world, home, root: wfRoot, runDir, reportDir: path.join(runDir, 'report') };
  writeProjects(m, []);
  const wfDead = path.join(wfRoot, 'codex-home', 'gone-project:chat');
  put(path.join(wfDead, 'sessions', 'r.jsonl'), '{}\n');

  const owl = install.owl === false ? null : buildOwl(world);
  const kilo = install.kilo === false ? null : buildKilo(home);
  backdate(world, daysAgo(3));
  return {
    dir: world,
    home,
    runDir,
    watchfire: { root: wfRoot, dead: wfDead },
    owl,
    kilo,
    snapshot: () => inventory(world),
    key: (p) => path.relative(world, p),
    config: { homes: [home], minAge: '1h', reportDir: path.join(runDir, 'report') },
  };
}

function buildOwl(world: string): MixedHome['owl'] {
  const owl = owlHome(world);
  const db = createOwlDb(owl.db);
  addProject(db, 'app', owl.repo);
  const done = jobWorktree(owl, 1);
  addJob(db, { id: 1, state: 'done', worktree: done, branch: 'owl/job-1' });
  db.close();
  const quarantine = path.join(owl.data, 'worktrees', quarantineName('7'));
  put(path.join(quarantine, 'half', 'left.txt'), 'left by a killed pass\n');
  return { ...owl, done, quarantine };
}

function buildKilo(home: string): MixedHome['kilo'] {
  const data = path.join(home, '.local', 'share', 'kilo');
  const state = path.join(home, '.local', 'state', 'kilo');
  mkdirSync(state, { recursive: true });
  const repo = makeKiloRepo(path.join(home, 'projects', 'kilo-app'));
  const projectId = projectIdOf(repo);
  const live = addKiloWorktree(repo, 'live');
  makeSnapshot(data, projectId, live);
  const gone = addKiloWorktree(repo, 'gone');
  const dead = makeSnapshot(data, projectId, gone);
  removeKiloWorktree(repo, gone);
  const managerFile = path.join(repo, '.kilo', 'agent-manager.json');
  put(
    managerFile,
    JSON.stringify({
      worktrees: {
        'wt-1': { branch: 'live', path: live, parentBranch: 'main', createdAt: '2026-11-01T00:00:00.000Z' },
      },
      sessions: {},
    }),
  );
  const kiloQuarantine = path.join(data, 'snapshot', projectId, quarantineName('f'.repeat(40)));
  put(path.join(kiloQuarantine, 'objects', 'left.pack'), Buffer.alloc(512, 3));
  const db = makeKiloDb(path.join(data, 'kilo.db'), {
    projects: [{ id: projectId, worktree: repo, sandboxes: [live] }],
  });
  return { data, state, repo, dead, quarantine: kiloQuarantine, db, managerFile };
}

/** The environment of a pass over the home as its own user, none of the caller's XDG folders. */
export const ownEnv = (h: MixedHome): NodeJS.ProcessEnv => ({
  HOME: h.home,
  XDG_DATA_HOME: '',
  XDG_STATE_HOME: '',
  XDG_CONFIG_HOME: '',
  XDG_RUNTIME_DIR: '',
  KILO_DB: '',
  OPENCODE_DB: '',
});
