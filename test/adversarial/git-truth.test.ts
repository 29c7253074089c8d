import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { reconcile } from '../../src/reconcile/reconcile.js';
import type { Report } from '../../src/model/types.js';
import { scrubGitEnvironment } from '../../src/git/environment.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import { runCli } from '../helpers/cli.js';
import { backdate, daysAgo, put } from '../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../helpers/inventory.js';
import { itemAt } from '../helpers/pass.js';
import { tempDir } from '../helpers/temp.js';
import { addKiloWorktree, makeSnapshot } from '../providers/kilo/fixtures.js';
import { runKilo, scene, snapshotOf } from '../providers/kilo/scene.js';
import { ownHomeEnv } from '../providers/owl/env.js';
import { addJob, addProject, createOwlDb } from '../providers/owl/owl-db.js';
import { jobWorktree, owlHome, type OwlHome } from '../providers/owl/scenario.js';
import { addWorktree, commitFile, makeRepo, sh } from '../helpers/git-fixtures.js';
import { withProcessEnv } from '../helpers/process-env.js';
import { GIT_TRUTH_CASES, gitTruthRepo, prepareRepo } from './support/git-truth-world.js';

/**
 * Rule 15: git's answer is only trusted when it is complete. Each case is a real loss of work
 * that `git status` and the HEAD check alone let through: a leaked GIT_* variable, a commit only a
 * per-worktree ref holds, an edit to a file flagged assume-unchanged or skip-worktree, a nested
 * repository, an operation in progress. Each is made with the real git, in a worktree of the
 * worktree sets and in an Owl job worktree, and a whole pass of the real CLI must keep it byte
 * for byte while the clean control goes.
 */

interface World {
  dir: string;
  owl: OwlHome;
  /** The worktree sets' owner repository and the root its worktrees sit in. */
  repo: string;
  setRoot: string;
  configFile: string;
  reportDir: string;
  env: NodeJS.ProcessEnv;
  /** Each worktree: its folder, its admin entry, and the provider that judges it. */
  trees: Array<{ name: string; provider: 'owl' | 'worktrees'; path: string; admin: string; expect: string }>;
}

function buildWorld(
  cases: Record<string, { expect: string; make: (w: string, repo: string, name: string) => void }>,
): World {
  const dir = tempDir();
  const world = path.join(dir, 'world');
  const owl = owlHome(world);
  prepareRepo(owl.repo);
  const repo = gitTruthRepo(path.join(world, 'home', 'src', 'agents'));
  const setRoot = path.join(world, 'var-tmp', 'vibe-kanban', 'worktrees', 'ws-1');
  mkdirSync(setRoot, { recursive: true });
  const db = createOwlDb(owl.db);
  addProject(db, 'app', owl.repo);
  const trees: World['trees'] = [];
  let id = 0;
  for (const [name, made] of Object.entries(cases)) {
    id += 1;
    const worktree = addWorktree(repo, path.join(setRoot, name), `vk/${name}`);
    made.make(worktree, repo, `vk-${name}`);
    trees.push({ name, provider: 'worktrees', path: worktree, admin: adminOf(worktree), expect: made.expect });
    const job = jobWorktree(owl, id);
    addJob(db, { id, state: 'done', branch: `owl/job-${id}`, worktree: job });
    made.make(job, owl.repo, `owl-${name}`);
    trees.push({ name, provider: 'owl', path: job, admin: adminOf(job), expect: made.expect });
  }
  db.close();
  backdate(world, daysAgo(3));
  const reportDir = path.join(dir, 'report');
  const configFile = path.join(dir, 'agent-janitor.yaml');
  writeFileSync(
    configFile,
    stringify({
      homes: [owl.home],
      minAge: '1h',
      reportDir,
      providers: { worktrees: { sets: [{ name: 'vibe-kanban', roots: [setRoot], idleAfter: '1d' }] } },
    }),
  );
  return { dir, owl, repo, setRoot, configFile, reportDir, env: ownHomeEnv(owl.home), trees };
}

function adminOf(worktree: string): string {
  return sh(worktree, 'rev-parse', '--absolute-git-dir').trim();
}

/** Every byte that must survive a tree that is kept: the worktree, its admin entry (its refs, its index, its operation). */
function snapshot(world: World): Map<string, ReturnType<typeof inventory>> {
  const kept = new Map<string, ReturnType<typeof inventory>>();
  for (const tree of world.trees) {
    if (tree.expect === 'deleted') continue;
    kept.set(tree.path, inventory(tree.path));
    kept.set(tree.admin, inventory(tree.admin));
  }
  return kept;
}

async function runPass(world: World, env: NodeJS.ProcessEnv = {}): Promise<Report> {
  const run = await runCli(['run', '--config', world.configFile, '--json', '--log-level', 'warn'], {
    env: { ...world.env, ...env },
    timeoutMs: 240_000,
  });
  expect([0, 1], run.stderr).toContain(run.code);
  return JSON.parse(run.stdout) as Report;
}

function expectSettled(world: World, report: Report, before: Map<string, ReturnType<typeof inventory>>): void {
  const verdicts = world.trees.map((tree) => {
    const item = itemAt(report, tree.path);
    const got = item.verdict === 'deleted' ? 'deleted' : `${item.verdict} ${item.reason}`;
    return `${tree.provider} ${tree.name}: ${got}`;
  });
  expect(verdicts).toEqual(world.trees.map((tree) => `${tree.provider} ${tree.name}: ${tree.expect}`));
  for (const tree of world.trees) {
    if (tree.expect === 'deleted') {
      expect(existsSync(tree.path), tree.path).toBe(false);
      continue;
    }
    for (const kept of [tree.path, tree.admin]) {
      const diff = diffInventories(before.get(kept) as ReturnType<typeof inventory>, inventory(kept));
      expect(diff, `${tree.provider} ${tree.name}: ${kept}`).toEqual({ removed: [], changed: [], added: [] });
    }
  }
}

describe('rule 15: what git status and the HEAD check alone do not see', () => {
  it('keeps per-worktree refs, flagged edits, nested repositories and operations in progress byte for byte, for Owl and the worktree sets; the clean, reflog-only and sparse trees go', {
    timeout: 300_000,
  }, async () => {
    const world = buildWorld(GIT_TRUTH_CASES);
    const before = snapshot(world);
    const refsBefore = [world.repo, world.owl.repo].map((repo) =>
      sh(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    );

    const report = await runPass(world);

    expectSettled(world, report, before);
    const detail = (provider: string, name: string) =>
      itemAt(report, (world.trees.find((t) => t.provider === provider && t.name === name) as { path: string }).path)
        .detail;
    for (const provider of ['owl', 'worktrees']) {
      expect(detail(provider, 'ref-worktree')).toContain('refs/worktree/keep');
      expect(detail(provider, 'assume-unchanged-edit')).toMatch(
        /flagged assume-unchanged or skip-worktree.*README\.md/,
      );
      expect(detail(provider, 'nested-ignored')).toContain(path.join('vendor', 'lib', '.git'));
      expect(detail(provider, 'nested-git-file')).toContain(path.join('vendor', 'separate', '.git'));
      expect(detail(provider, 'rebase')).toContain('rebase');
      expect(detail(provider, 'bisect')).toContain('bisect');
    }
    // No branch, tag or ref was touched; the per-worktree refs went only with the trees that held nothing.
    expect(
      [world.repo, world.owl.repo].map((repo) => sh(repo, 'for-each-ref', '--format=%(refname) %(objectname)')),
    ).toEqual(refsBefore);
  });
});

/** A repository that looks clean and whose `main` holds nothing of ours: what a leaked variable points git at. */
function decoy(dir: string): { repo: string; ignoreAll: string; gitconfig: string } {
  const repo = makeRepo(path.join(dir, 'decoy'));
  const ignoreAll = put(path.join(dir, 'ignore-all'), '*\n');
  const gitconfig = put(
    path.join(dir, 'decoy-gitconfig'),
    `[core]\n\texcludesFile = ${ignoreAll}\n[status]\n\tshowUntrackedFiles = no\n`,
  );
  return { repo, ignoreAll, gitconfig };
}

const VICTIMS = {
  clean: { expect: 'deleted', make: () => {} },
  'unique-commit': {
    expect: 'unfinished unique-commits',
    make: (worktree: string) => {
      sh(worktree, 'checkout', '-q', '--detach');
      commitFile(worktree, 'only-copy.txt', 'the only copy\n', 'unpushed work');
    },
  },
  untracked: {
    expect: 'unfinished uncommitted-changes',
    make: (worktree: string) => {
      put(path.join(worktree, 'notes', 'plan.md'), 'a plan nobody committed\n');
    },
  },
};

type Leak = (d: ReturnType<typeof decoy>) => NodeJS.ProcessEnv;
const LEAKS: Array<[string, Leak]> = [
  ['GIT_DIR and GIT_WORK_TREE', (d) => ({ GIT_DIR: path.join(d.repo, '.git'), GIT_WORK_TREE: d.repo })],
  ['GIT_DIR alone', (d) => ({ GIT_DIR: path.join(d.repo, '.git') })],
  ['GIT_INDEX_FILE', (d) => ({ GIT_INDEX_FILE: path.join(d.repo, '.git', 'index') })],
  [
    'GIT_CONFIG_COUNT, KEY_n and VALUE_n',
    (d) => ({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'core.excludesFile',
      GIT_CONFIG_VALUE_0: d.ignoreAll,
      GIT_CONFIG_KEY_1: 'status.showUntrackedFiles',
      GIT_CONFIG_VALUE_1: 'no',
    }),
  ],
  ['GIT_CONFIG_PARAMETERS', (d) => ({ GIT_CONFIG_PARAMETERS: `'core.excludesfile'='${d.ignoreAll}'` })],
  ['GIT_CONFIG_GLOBAL', (d) => ({ GIT_CONFIG_GLOBAL: d.gitconfig })],
  ['GIT_OBJECT_DIRECTORY', (d) => ({ GIT_OBJECT_DIRECTORY: path.join(d.repo, '.git', 'objects') })],
  ['GIT_COMMON_DIR', (d) => ({ GIT_COMMON_DIR: path.join(d.repo, '.git') })],
  ['GIT_NAMESPACE', () => ({ GIT_NAMESPACE: 'elsewhere' })],
];

/**
 * Git config outside the repository, as the pass's own home has it (root's, or the user's who runs
 * the pass by hand): each would have git call an untracked file ignored. Answers the pass's extra
 * environment.
 */
const OUTSIDE_CONFIG: Array<[string, (world: World, d: ReturnType<typeof decoy>) => NodeJS.ProcessEnv]> = [
  [
    'a ~/.gitconfig of the pass that names an excludes file',
    (world, d) => {
      put(path.join(world.env.HOME as string, '.gitconfig'), `[core]\n\texcludesFile = ${d.ignoreAll}\n`);
      return {};
    },
  ],
  [
    "~/.config/git/ignore, the pass's default excludes file",
    (world) => {
      put(path.join(world.env.HOME as string, '.config', 'git', 'ignore'), '*\n');
      return {};
    },
  ],
  [
    'an XDG_CONFIG_HOME of the pass with git/config and git/ignore',
    (world, d) => {
      const xdg = path.join(world.dir, 'xdg');
      put(path.join(xdg, 'git', 'config'), `[core]\n\texcludesFile = ${d.ignoreAll}\n`);
      put(path.join(xdg, 'git', 'ignore'), '*\n');
      return { XDG_CONFIG_HOME: xdg };
    },
  ],
];

describe("rule 15: the pass's environment never reaches git", () => {
  it.each(LEAKS)(
    'with %s set for the pass, a unique commit and an untracked file survive and the clean tree still goes',
    { timeout: 240_000 },
    async (_name, leak) => {
      const world = buildWorld(VICTIMS);
      const bait = decoy(world.dir);
      // The decoy's main also holds the victims' HEADs where a namespace would be read instead.
      sh(
        bait.repo,
        'update-ref',
        'refs/namespaces/elsewhere/refs/heads/main',
        sh(bait.repo, 'rev-parse', 'HEAD').trim(),
      );
      const before = snapshot(world);

      const report = await runPass(world, leak(bait));

      expectSettled(world, report, before);
    },
  );

  it.each(OUTSIDE_CONFIG)(
    'with %s, a unique commit and an untracked file survive and the clean tree still goes',
    { timeout: 240_000 },
    async (_name, configure) => {
      const world = buildWorld(VICTIMS);
      const env = configure(world, decoy(world.dir));
      const before = snapshot(world);

      const report = await runPass(world, env);

      expectSettled(world, report, before);
    },
  );

  it('drops every variable git itself lists as local to a repository, and any other GIT_* but GIT_EXEC_PATH', () => {
    const local = execFileSync('git', ['rev-parse', '--local-env-vars'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(local).toContain('GIT_DIR');
    const poisoned = Object.fromEntries(
      [
        ...local,
        'GIT_CONFIG_GLOBAL',
        'GIT_CONFIG_SYSTEM',
        'GIT_CONFIG_NOSYSTEM',
        'GIT_CONFIG_KEY_0',
        'GIT_CONFIG_VALUE_0',
        'GIT_NAMESPACE',
        'GIT_CEILING_DIRECTORIES',
        'GIT_LITERAL_PATHSPECS',
        'GIT_GLOB_PATHSPECS',
        'GIT_ICASE_PATHSPECS',
        'GIT_TRACE',
        'GIT_SOMETHING_NEW',
      ].map((name) => [name, '/elsewhere']),
    );
    const scrubbed = scrubGitEnvironment({
      ...poisoned,
      GIT_EXEC_PATH: '/usr/lib/git-core',
      PATH: '/usr/bin',
      HOME: '/root',
    });
    expect(scrubbed).toEqual({ GIT_EXEC_PATH: '/usr/lib/git-core', PATH: '/usr/bin', HOME: '/root' });
  });
});

/** What the re-judge finds in each of LATE_CHANGES: the tree is `unfinished` with that reason (rule 23). */
const LATE_REASONS: Record<string, string> = {
  'ref-worktree': 'unique-commits',
  'assume-unchanged-edit': 'uncommitted-changes',
  'nested-ignored': 'nested-repository',
  bisect: 'operation-in-progress',
};

/** What happens to a clean tree between the plan and its removal, each caught only by the re-judge. */
const LATE_CHANGES: Record<string, (worktree: string, repo: string, name: string) => void> = {
  'ref-worktree': (worktree, _repo, name) => {
    const commit = commitFile(worktree, 'late.txt', `late work in ${name}\n`, 'late work');
    sh(worktree, 'reset', '-q', '--hard', 'HEAD~');
    sh(worktree, 'update-ref', 'refs/worktree/late', commit);
  },
  'assume-unchanged-edit': (worktree) => {
    sh(worktree, 'update-index', '--assume-unchanged', 'README.md');
    put(path.join(worktree, 'README.md'), '# project\n\na late edit git status does not show\n');
  },
  'nested-ignored': (worktree, repo, name) => GIT_TRUTH_CASES['nested-ignored']?.make(worktree, repo, name),
  bisect: (worktree) => {
    sh(worktree, 'bisect', 'start');
  },
};

describe('rule 15: the re-judge just before git worktree remove', () => {
  it('stops the removal of a tree that gained a per-worktree ref, a flagged edit, a nested repository or a bisect after the plan', {
    timeout: 300_000,
  }, async () => {
    const world = buildWorld(
      Object.fromEntries(Object.keys(LATE_CHANGES).map((name) => [name, { expect: 'failed', make: () => {} }])),
    );
    const config = await loadConfig({
      providers: PROVIDERS,
      file: world.configFile,
      env: { ...process.env, ...world.env },
    });
    let changed: Map<string, ReturnType<typeof inventory>> = new Map();
    const result = await reconcile({
      config,
      providers: PROVIDERS,
      reportOnly: false,
      log: pino({ level: 'silent' }),
      env: { ...process.env, ...world.env },
      onPlanned: (items) => {
        for (const tree of world.trees) {
          expect(items.find((item) => item.path === tree.path)?.verdict, tree.path).toBe('would-delete');
          const repo = tree.provider === 'owl' ? world.owl.repo : world.repo;
          (LATE_CHANGES[tree.name] as (w: string, r: string, n: string) => void)(
            tree.path,
            repo,
            `late-${tree.provider}-${tree.name}`,
          );
        }
        // Old again, so that nothing but the re-judge (or the last proof after it) can stop the removal.
        backdate(path.join(world.dir, 'world'), daysAgo(3));
        changed = new Map(
          world.trees.flatMap((tree) => [
            [tree.path, inventory(tree.path)],
            [tree.admin, inventory(tree.admin)],
          ]),
        );
      },
    });
    for (const tree of world.trees) {
      const item = itemAt(result.report, tree.path);
      expect(`${tree.provider} ${tree.name}: ${item.verdict} ${item.reason}`).toBe(
        `${tree.provider} ${tree.name}: unfinished ${LATE_REASONS[tree.name]}`,
      );
      expect(item.detail).toContain('judged again just before the delete');
      for (const kept of [tree.path, tree.admin])
        expect(diffInventories(changed.get(kept) as ReturnType<typeof inventory>, inventory(kept)), kept).toEqual({
          removed: [],
          changed: [],
          added: [],
        });
    }
  });
});

describe("rule 15: Kilo's git calls get the scrubbed environment too", () => {
  it.each([
    ['GIT_DIR', (d: string) => ({ GIT_DIR: path.join(d, '.git') })],
    ['GIT_COMMON_DIR', (d: string) => ({ GIT_COMMON_DIR: path.join(d, '.git') })],
  ] as const)(
    'with %s leaked into the pass, a checkpoint repository whose worktree git still registers is refused, not deleted',
    async (_name, leak) => {
      const s = scene();
      const gone = addKiloWorktree(s.repo, 'gone');
      const checkpoints = makeSnapshot(s.data, s.projectId, gone, { seededFrom: s.repo });
      rmSync(gone, { recursive: true, force: true });
      const bait = makeRepo(path.join(s.work, 'decoy'));
      const before = snapshotOf(s);
      const { report } = await withProcessEnv(leak(bait), () => runKilo(s));
      expect(itemAt(report, checkpoints)).toMatchObject({ verdict: 'refused', reason: 'worktree-still-registered' });
      expect(diffInventories(before, snapshotOf(s))).toEqual({ removed: [], changed: [], added: [] });
    },
  );
});
