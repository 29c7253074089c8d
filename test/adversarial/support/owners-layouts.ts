import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ProviderName } from '../../../src/model/types.js';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import { sessionName } from '../../../src/providers/watchfire/slug.js';
import { put } from '../../helpers/fs-fixtures.js';
import {
  addKiloWorktree,
  kiloPaths,
  makeRepo as makeKiloRepo,
  makeSnapshot,
  projectIdOf,
  removeKiloWorktree,
} from '../../providers/kilo/fixtures.js';
import { addJob, addProject, createOwlDb } from '../../providers/owl/owl-db.js';
import { makeShadowRepo, stateDbOf, writeStateDb } from '../../engines/vscode-storage/fixtures.js';
import { addWorktree, commitFile, makeRepo, sh } from '../../helpers/git-fixtures.js';

/**
 * One provider's real state in a home, built as its tool builds it, whose items a pass over that
 * home deletes: the layouts of rule 20's tests. `live` asks that the home's own record of them
 * (where it lies outside the folder a link replaces) name them alive, as it does for a user who is
 * still working with them.
 */
export interface Layout {
  provider: ProviderName;
  /** What kind of location the link replaces, in the words of rule 20. */
  kind: string;
  /** Where in the home the planted link sits. */
  link: string;
  /** The home's own record names the items alive when the other user owns them (it lies outside the link). */
  liveForOwner: boolean;
  build(home: string, options: { live: boolean }): string[];
}

const CLINE = 'saoudrizwan.claude-dev';
export const ROO = 'RooVeterinaryInc.roo-cline';
export const KILO = 'kilocode.kilo-code';

/** `.watchfire`: a registry without the project, and a session home of it in codex-home/. */
export function watchfire(home: string): string[] {
  const root = path.join(home, '.watchfire');
  put(path.join(root, 'projects.yaml'), 'version: 1\nprojects: []\n');
  const session = path.join(root, 'codex-home', sessionName({ projectName: 'Old Project', mode: 'chat' }));
  put(path.join(session, 'AGENTS.md'), '# Watchfire system prompt\n');
  put(
    path.join(session, 'sessions', '2026', '11', '28', 'rollout-2026-11-28T09-00-00-abc.jsonl'),
    '{"type":"message"}\n',
  );
  return [session];
}

/** Kilo's data folder: a checkpoint repository of a worktree that `kilo worktree remove` took. */
export function kilo(home: string): string[] {
  const { data } = kiloPaths(home);
  mkdirSync(path.join(home, '.local', 'state', 'kilo'), { recursive: true });
  const repo = makeKiloRepo(path.join(home, 'src', 'shop'));
  const gone = addKiloWorktree(repo, 'gone');
  const checkpoints = makeSnapshot(data, projectIdOf(repo), gone);
  removeKiloWorktree(repo, gone);
  return [checkpoints];
}

/** Coding Owl: a done job's clean worktree, as Owl makes it, with its per-worktree config. */
function owl(home: string): string[] {
  const data = path.join(home, '.local', 'share', 'coding-owl');
  mkdirSync(path.join(home, '.local', 'state', 'coding-owl'), { recursive: true });
  const repo = makeRepo(path.join(home, 'src', 'app'));
  sh(repo, 'config', 'extensions.worktreeConfig', 'true');
  const worktree = path.join(data, 'worktrees', '1');
  addWorktree(repo, worktree, 'owl/job-1');
  const excludes = put(path.join(data, 'worktree-config', '1', 'excludes'), '.owl/\n');
  sh(worktree, 'config', '--worktree', 'core.excludesFile', excludes);
  commitFile(worktree, 'job-1.txt', 'work of job 1\n');
  sh(repo, 'branch', 'kept', 'owl/job-1');
  const db = createOwlDb(path.join(data, 'owl.db'));
  addProject(db, 'app', repo);
  addJob(db, { id: 1, state: 'done', branch: 'owl/job-1', worktree });
  db.close();
  return [worktree];
}

/**
 * A merged, clean, idle worktree of an agent tool under `folder`, holding the only copy of an
 * ignored `.env.local` (ignored files are no work to keep, by rule 8).
 */
export function toolWorktree(home: string, folder: string): string[] {
  const repo = makeRepo(path.join(home, 'src', 'app'));
  put(path.join(repo, '.gitignore'), '*.log\n.env.local\n');
  sh(repo, 'commit', '-q', '-am', 'ignore local settings');
  const worktree = addWorktree(repo, path.join(home, folder), 'agent/done');
  put(path.join(worktree, '.env.local'), 'API_KEY=the-only-copy\n');
  return [worktree];
}

/** A product's state database with the extension's row, naming `tasks` (id, workspace) in taskHistory. */
function stateDb(userData: string, extension: string, tasks: Array<[string, string]>, profile?: string): void {
  const folder = profile ? path.join(userData, 'User', 'profiles', profile) : path.join(userData, 'User');
  const file = profile ? path.join(folder, 'globalStorage', 'state.vscdb') : stateDbOf(userData);
  const items = tasks.map(([id, workspace]) => ({
    id,
    ts: 1790000000000,
    task: 'write hello',
    workspace,
    cwdOnTaskInitialization: workspace,
  }));
  writeStateDb(file, { [extension]: { taskHistory: items } });
}

/** Cline's workspace repository of one task in `storage`, and the product's state database naming it when `live`. */
function cline(home: string, storage: string, userData: string | null, live: boolean): string[] {
  const workspace = path.join(home, 'projects', 'site');
  const task = '1790000000801';
  const repo = makeShadowRepo(path.join(storage, 'checkpoints', hashWorkingDir(workspace)), {
    worktree: workspace,
    userName: 'Cline Checkpoint',
    userEmail: 'checkpoint@cline.bot',
    emptyTemplate: false,
    checkpoints: [`checkpoint-${hashWorkingDir(workspace)}-${task}`],
  });
  if (userData) stateDb(userData, CLINE, live ? [[task, workspace]] : []);
  return [repo];
}

/** A Roo Code (or old Kilo Code) task's checkpoint repository `tasks/<id>/checkpoints` in `storage`. */
export function roo(home: string, storage: string, userData: string, extension: string, live: boolean): string[] {
  const workspace = path.join(home, 'projects', 'site');
  const task = '0199a000-0000-7000-8000-000000000811';
  const repo = makeShadowRepo(path.join(storage, 'tasks', task, 'checkpoints'), {
    worktree: workspace,
    userName: extension === KILO ? 'Kilo Code' : 'Roo Code',
    userEmail: 'noreply@example.com',
    emptyTemplate: true,
    checkpoints: [`Task: ${task}, Time: 1790000000000`],
  });
  put(path.join(storage, 'tasks', task, 'ui_messages.json'), '[]');
  stateDb(userData, extension, live ? [[task, workspace]] : []);
  return [repo];
}

export const code = (home: string) => path.join(home, '.config', 'Code');
export const storageOf = (userData: string, extension: string, profile?: string) =>
  path.join(userData, 'User', ...(profile ? ['profiles', profile] : []), 'globalStorage', extension.toLowerCase());

/** A profile's storage, whose history the default profile's state database keeps. */
function profiled(home: string, extension: string, live: boolean, make: typeof roo | typeof clineIn): string[] {
  const userData = code(home);
  stateDb(userData, extension, []);
  const items = make(home, storageOf(userData, extension, 'p1'), userData, extension, false);
  if (live) {
    const workspace = path.join(home, 'projects', 'site');
    const task = extension === CLINE ? '1790000000801' : '0199a000-0000-7000-8000-000000000811';
    stateDb(userData, extension, [[task, workspace]]);
  }
  // The profile's own state database, which VS Code keeps beside its storage.
  writeStateDb(path.join(userData, 'User', 'profiles', 'p1', 'globalStorage', 'state.vscdb'), {});
  return items;
}

function clineIn(home: string, storage: string, userData: string, _extension: string, live: boolean): string[] {
  return cline(home, storage, userData, live);
}

export const LAYOUTS: readonly Layout[] = [
  { provider: 'watchfire', kind: 'a provider root', link: '.watchfire', liveForOwner: false, build: watchfire },
  { provider: 'kilo', kind: 'a provider root', link: '.local/share/kilo', liveForOwner: false, build: kilo },
  {
    provider: 'kilo',
    kind: 'a folder between the home and the root',
    link: '.local',
    liveForOwner: false,
    build: kilo,
  },
  {
    provider: 'kilo',
    kind: 'a folder between the root and the items',
    link: '.local/share/kilo/snapshot',
    liveForOwner: false,
    build: kilo,
  },
  { provider: 'owl', kind: 'a provider root', link: '.local/share/coding-owl', liveForOwner: false, build: owl },
  {
    provider: 'owl',
    kind: 'a folder between the home and the root',
    link: '.local/share',
    liveForOwner: false,
    build: owl,
  },
  {
    provider: 'worktrees',
    kind: "a set root's fixed part ({codex-home})",
    link: '.codex',
    liveForOwner: false,
    build: (home) => toolWorktree(home, '.codex/worktrees/ab12/app'),
  },
  {
    provider: 'worktrees',
    kind: "a set root's fixed part (below {codex-home})",
    link: '.codex/worktrees',
    liveForOwner: false,
    build: (home) => toolWorktree(home, '.codex/worktrees/ab12/app'),
  },
  {
    provider: 'worktrees',
    kind: "a set root's fixed part (~/)",
    link: '.cursor',
    liveForOwner: false,
    build: (home) => toolWorktree(home, '.cursor/worktrees/app/calm-river'),
  },
  {
    provider: 'cline',
    kind: 'a storage folder',
    link: '.config/Code/User/globalStorage/saoudrizwan.claude-dev',
    liveForOwner: true,
    build: (home, { live }) => cline(home, storageOf(code(home), CLINE), code(home), live),
  },
  {
    provider: 'cline',
    kind: 'the VS Code user-data folder',
    link: '.config/Code',
    liveForOwner: false,
    build: (home, { live }) => cline(home, storageOf(code(home), CLINE), code(home), live),
  },
  {
    provider: 'cline',
    kind: 'a folder between the home and the user-data folder',
    link: '.config',
    liveForOwner: false,
    build: (home, { live }) => cline(home, storageOf(code(home), CLINE), code(home), live),
  },
  {
    provider: 'cline',
    kind: "a profile's globalStorage",
    link: '.config/Code/User/profiles/p1/globalStorage',
    liveForOwner: true,
    build: (home, { live }) => profiled(home, CLINE, live, clineIn),
  },
  {
    provider: 'cline',
    kind: "the standalone host's data folder (a provider root)",
    link: '.cline/data',
    liveForOwner: false,
    build: (home) => cline(home, path.join(home, '.cline', 'data'), null, false),
  },
  {
    provider: 'roo',
    kind: "the old Kilo Code extension's storage folder",
    link: '.config/Code/User/globalStorage/kilocode.kilo-code',
    liveForOwner: true,
    build: (home, { live }) => roo(home, storageOf(code(home), KILO), code(home), KILO, live),
  },
  {
    provider: 'roo',
    kind: "Roo Code's storage folder",
    link: '.config/Code/User/globalStorage/rooveterinaryinc.roo-cline',
    liveForOwner: true,
    build: (home, { live }) => roo(home, storageOf(code(home), ROO), code(home), ROO, live),
  },
  {
    provider: 'roo',
    kind: 'the VS Code user-data folder',
    link: '.config/Code',
    liveForOwner: false,
    build: (home, { live }) => roo(home, storageOf(code(home), KILO), code(home), KILO, live),
  },
  {
    provider: 'roo',
    kind: "a profile's globalStorage",
    link: '.config/Code/User/profiles/p1/globalStorage',
    liveForOwner: true,
    build: (home, { live }) => profiled(home, KILO, live, roo),
  },
  {
    provider: 'roo',
    kind: "a remote server's folder",
    link: '.vscode-server',
    liveForOwner: false,
    build: (home, { live }) => {
      const userData = path.join(home, '.vscode-server', 'data');
      return roo(home, storageOf(userData, ROO), userData, ROO, live);
    },
  },
];
