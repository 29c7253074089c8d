import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ItemKind, ProviderName } from '../../src/model/types.js';
import { quarantineName } from '../../src/safety/removal/quarantine.js';
import { workspaceRepo, clineScene, historyItem as clineItem, writeTaskHistory } from '../providers/cline/fixtures.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { tempDir } from '../helpers/temp.js';
import { addKiloWorktree, makeSnapshot, removeKiloWorktree } from '../providers/kilo/fixtures.js';
import { scene as kiloScene } from '../providers/kilo/scene.js';
import { ownHomeEnv } from '../providers/owl/env.js';
import { addJob, addProject, createOwlDb } from '../providers/owl/owl-db.js';
import { jobWorktree, owlHome } from '../providers/owl/scenario.js';
import { historyItem as rooItem, rooScene, taskRepo, writeGlobalHistory } from '../providers/roo/fixtures.js';
import { writeProjects } from '../providers/watchfire/fixture.js';
import { addWorktree, makeRepo, sh } from '../helpers/git-fixtures.js';

/**
 * One item of each provider and kind that its owner's record proves dead, in a world of its own,
 * everything in it three days old (twenty for the built-in sets, whose idle times are longer).
 */
export interface DeadItem {
  /** provider and kind, and what makes this one differ from the others of its kind. */
  label: string;
  provider: ProviderName;
  kind: ItemKind;
  /** The folder whose entries an inventory takes (the pass's own run folder is outside it). */
  world: string;
  home: string;
  item: string;
  /** The verdict's reason when the item is deleted. */
  reason: string;
  /** Where the pass runs: its config and report. */
  run: string;
  config: Record<string, unknown>;
  only: ProviderName[];
  env: NodeJS.ProcessEnv;
  /** A new file that git would not stop a removal for (an ignored one in a worktree), inside the item. */
  lateFile: string;
  /** A folder inside the item where more entries change nothing of the owner's judgement. */
  inner: string;
  /** The repository a worktree belongs to. */
  repo?: string;
  /** The worktree's admin entry, which goes with it. */
  adminDir?: string;
  /** Where `git` runs inside the item as its owner would (the worktree's top), if anywhere. */
  gitWorktree?: string;
  /** Dates the whole world back again, as it was built (after a test's own changes to it). */
  age(): void;
}

const old = (dir: string, days = 3) => backdate(dir, daysAgo(days));

function watchfire(kind: 'session-home' | 'quarantine'): DeadItem {
  const world = tempDir('aj-proof-wf-');
  const home = path.join(world, 'home', 'ana');
  const root = path.join(home, '.watchfire');
  const run = tempDir('aj-proof-run-');
  mkdirSync(root, { recursive: true });
  writeProjects({ dir: world, home, root, runDir: run, reportDir: path.join(run, 'report') }, []);
  const folder = path.join(root, 'codex-home');
  const item = kind === 'quarantine' ? path.join(folder, quarantineName('gone:chat')) : path.join(folder, 'gone:chat');
  put(path.join(item, 'AGENTS.md'), '# prompt\n');
  put(path.join(item, 'sessions', 'r.jsonl'), '{"turn":1}\n');
  old(world);
  return {
    label: `watchfire ${kind}`,
    provider: 'watchfire',
    kind,
    world,
    home,
    item,
    reason: kind === 'quarantine' ? 'quarantine-leftover' : 'project-deleted',
    run,
    config: { homes: [home], minAge: '1h' },
    only: ['watchfire'],
    env: ownHomeEnv(home),
    lateFile: path.join(item, 'sessions', 'late.jsonl'),
    inner: item,
    age: () => old(world),
  };
}

function kilo(): DeadItem {
  const s = kiloScene();
  const gone = addKiloWorktree(s.repo, 'gone');
  const item = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
  removeKiloWorktree(s.repo, gone);
  old(s.root);
  return {
    label: 'kilo checkpoint-repo',
    provider: 'kilo',
    kind: 'checkpoint-repo',
    world: s.root,
    home: s.home,
    item,
    reason: 'worktree-removed',
    run: s.work,
    config: { homes: [s.home], minAge: '1h' },
    only: ['kilo'],
    env: { ...ownHomeEnv(s.home), KILO_DB: '', OPENCODE_DB: '' },
    lateFile: path.join(item, 'objects', 'late-pack'),
    inner: item,
    age: () => old(s.root),
  };
}

function owl(kind: 'worktree' | 'worktree-admin' | 'worktree-config'): DeadItem {
  const world = tempDir('aj-proof-owl-');
  const o = owlHome(world);
  const db = createOwlDb(o.db);
  addProject(db, 'app', o.repo);
  const worktree = jobWorktree(o, 1);
  addJob(db, { id: 1, state: 'done', worktree, branch: 'owl/job-1' });
  db.close();
  const adminDir = path.join(o.repo, '.git', 'worktrees', '1');
  // Its worktree folder lost: a stale admin entry, and a worktree-config folder nothing needs.
  if (kind !== 'worktree') rmSync(worktree, { recursive: true, force: true });
  old(world);
  const item = kind === 'worktree' ? worktree : kind === 'worktree-admin' ? adminDir : o.config(1);
  return {
    label: `owl ${kind}`,
    provider: 'owl',
    kind: kind === 'worktree' ? 'worktree' : 'worktree-admin',
    world,
    home: o.home,
    item,
    reason: {
      worktree: 'job-done',
      'worktree-admin': 'stale-admin-entry',
      'worktree-config': 'orphan-worktree-config',
    }[kind],
    run: tempDir('aj-proof-run-'),
    config: { homes: [o.home], minAge: '1h' },
    only: ['owl'],
    env: ownHomeEnv(o.home),
    lateFile: path.join(item, kind === 'worktree' ? 'build.log' : 'late'),
    inner: item,
    repo: o.repo,
    ...(kind === 'worktree' ? { adminDir, gitWorktree: worktree } : {}),
    age: () => old(world),
  };
}

/** A worktree of a set the config names, idle and clean, its commit held by main. */
function worktreeSet(): DeadItem {
  const world = tempDir('aj-proof-set-');
  const home = path.join(world, 'home');
  const repo = makeRepo(path.join(home, 'src', 'app'));
  const item = addWorktree(repo, path.join(world, 'var-tmp', 'kanban', 'ws', 'merged-clean'), 'vk/merged-clean');
  old(world);
  return {
    label: 'worktrees worktree (a configured set)',
    provider: 'worktrees',
    kind: 'worktree',
    world,
    home,
    item,
    reason: 'idle-clean',
    run: tempDir('aj-proof-run-'),
    config: {
      homes: [home],
      minAge: '1h',
      providers: {
        worktrees: { sets: [{ name: 'kanban', roots: [path.join(world, 'var-tmp', 'kanban', '*')], idleAfter: '1d' }] },
      },
    },
    only: ['worktrees'],
    env: ownHomeEnv(home),
    lateFile: path.join(item, 'late.log'),
    inner: item,
    repo,
    adminDir: path.join(repo, '.git', 'worktrees', 'merged-clean'),
    gitWorktree: item,
    age: () => old(world),
  };
}

/** Cursor's worktree (a built-in set): `~/.cursor/worktrees/<repo>/<id>`, detached at the base commit. */
function builtInSet(): DeadItem {
  const world = tempDir('aj-proof-cursor-');
  const home = path.join(world, 'home');
  const repo = makeRepo(path.join(home, 'src', 'shop'));
  const item = path.join(home, '.cursor', 'worktrees', 'shop', '307Ps');
  mkdirSync(path.dirname(item), { recursive: true });
  sh(repo, 'worktree', 'add', '-q', '--detach', item, 'HEAD');
  old(world, 20);
  return {
    label: 'worktrees worktree (the built-in set cursor)',
    provider: 'worktrees',
    kind: 'worktree',
    world,
    home,
    item,
    reason: 'idle-clean',
    run: tempDir('aj-proof-run-'),
    config: { homes: [home], minAge: '1h' },
    only: ['worktrees'],
    env: ownHomeEnv(home),
    lateFile: path.join(item, 'late.log'),
    inner: item,
    repo,
    adminDir: path.join(repo, '.git', 'worktrees', '307Ps'),
    gitWorktree: item,
    age: () => old(world, 20),
  };
}

function cline(): DeadItem {
  const s = clineScene();
  const item = workspaceRepo(s.gs, path.join(s.projects, 'a'), ['1790000000801']);
  workspaceRepo(s.gs, path.join(s.projects, 'b'), ['1790000000802']);
  writeTaskHistory(s.gs, [clineItem('1790000000802', path.join(s.projects, 'b'))]);
  old(s.root, 2);
  return {
    label: 'cline checkpoint-repo',
    provider: 'cline',
    kind: 'checkpoint-repo',
    world: s.root,
    home: s.home,
    item,
    reason: 'task-deleted',
    run: s.work,
    config: { homes: [s.home], minAge: '1h' },
    only: ['cline'],
    env: { HOME: '/nonexistent-home', XDG_CONFIG_HOME: '', CLINE_DIR: '' },
    lateFile: path.join(item, '.git', 'objects', 'late-pack'),
    // Cline and Roo Code keep nothing beside the repository's .git: what else is there is theirs.
    inner: path.join(item, '.git'),
    age: () => old(s.root, 2),
  };
}

function roo(): DeadItem {
  const s = rooScene();
  const live = '0199a000-0000-7000-8000-000000000811';
  taskRepo(s, live, path.join(s.projects, 'x'));
  const item = taskRepo(s, '0199a000-0000-7000-8000-000000000812', path.join(s.projects, 'x'));
  writeGlobalHistory(s, [rooItem(live, path.join(s.projects, 'x'))]);
  old(s.root, 2);
  return {
    label: 'roo checkpoint-repo',
    provider: 'roo',
    kind: 'checkpoint-repo',
    world: s.root,
    home: s.home,
    item,
    reason: 'task-deleted',
    run: s.work,
    config: { homes: [s.home], minAge: '1h' },
    only: ['roo'],
    env: { HOME: '/nonexistent-home', XDG_CONFIG_HOME: '' },
    lateFile: path.join(item, '.git', 'objects', 'late-pack'),
    // Cline and Roo Code keep nothing beside the repository's .git: what else is there is theirs.
    inner: path.join(item, '.git'),
    age: () => old(s.root, 2),
  };
}

/**
 * The Agent Manager's half-deleted worktree, `<R>/.kilo/worktrees/.kilo-delete-<uuid>`, in a
 * repository Kilo's checkpoint repositories name.
 */
function kiloDelete(): DeadItem {
  const base = kilo();
  // The owner repository R of the Kilo scene, which the dead checkpoint repository names.
  const repo = path.join(base.world, 'projects', 'app');
  const item = path.join(repo, '.kilo', 'worktrees', `.kilo-delete-${randomUUID()}`);
  put(path.join(item, 'src', 'half.ts'), 'export {};\n');
  put(path.join(item, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  base.age();
  return {
    ...base,
    label: 'kilo quarantine (a .kilo-delete-<uuid> leftover)',
    kind: 'quarantine',
    item,
    reason: 'kilo-delete-leftover',
    lateFile: path.join(item, 'src', 'late.ts'),
    inner: item,
  };
}

/**
 * What a deletion interrupted after its rename leaves: `base`'s item in its quarantine
 * `.<name>.cleanup-<uuid>`, beside where it was; every pass finishes it, whatever the owner's
 * record says now.
 */
function quarantined(base: DeadItem, label: string): DeadItem {
  const item = path.join(path.dirname(base.item), quarantineName(path.basename(base.item)));
  renameSync(base.item, item);
  const moved = (p: string) => item + p.slice(base.item.length);
  base.age();
  return {
    ...base,
    label,
    kind: 'quarantine',
    item,
    reason: 'quarantine-leftover',
    lateFile: moved(base.lateFile),
    inner: moved(base.inner),
  };
}

/** Every provider and kind, each as a function that builds its world afresh. */
export const DEAD_ITEMS: ReadonlyArray<readonly [string, () => DeadItem]> = [
  ['watchfire session-home', () => watchfire('session-home')],
  ['watchfire quarantine', () => watchfire('quarantine')],
  ['kilo checkpoint-repo', kilo],
  ['kilo quarantine (a checkpoint repository)', () => quarantined(kilo(), 'kilo quarantine (a checkpoint repository)')],
  ['kilo quarantine (a .kilo-delete-<uuid> leftover)', kiloDelete],
  ['owl worktree', () => owl('worktree')],
  ['owl worktree-admin (a stale admin entry)', () => owl('worktree-admin')],
  ['owl worktree-admin (a worktree-config folder)', () => owl('worktree-config')],
  [
    'owl quarantine (a pruned admin entry)',
    () => quarantined(owl('worktree-admin'), 'owl quarantine (a pruned admin entry)'),
  ],
  [
    'owl quarantine (a worktree-config folder)',
    () => quarantined(owl('worktree-config'), 'owl quarantine (a worktree-config folder)'),
  ],
  ['worktrees worktree (a configured set)', worktreeSet],
  ['worktrees worktree (the built-in set cursor)', builtInSet],
  ['cline checkpoint-repo', cline],
  ['cline quarantine', () => quarantined(cline(), 'cline quarantine')],
  ['roo checkpoint-repo', roo],
  ['roo quarantine', () => quarantined(roo(), 'roo quarantine')],
];
