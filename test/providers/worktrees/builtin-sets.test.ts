import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Report } from '../../../src/model/types.js';
import { CLI, collect, runCli, type CliResult } from '../../helpers/cli.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { ownHomeEnv } from '../owl/env.js';
import { addWorktree, expectOnly, makeRepo, sh, sqliteCompanion } from '../../helpers/git-fixtures.js';
import { buildToolsHome, codexAppWorktree, type ToolsHome } from './tools.js';

const VIBE_KANBAN = '/var/tmp/vibe-kanban/worktrees/3f2a-add-login/shop';

/**
 * Runs a shell script in a mount namespace of its own where `/var/tmp` is `varTmp`: vibe-kanban's
 * system-wide folder is real for git and the CLI, and nothing of the machine's own /var/tmp is seen.
 */
function inVarTmp(varTmp: string, script: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = spawn(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-ec', `mount --bind "$AJ_VAR_TMP" /var/tmp\n${script}`],
    { env: { ...process.env, ...env, AJ_VAR_TMP: varTmp }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return collect(child, 120_000);
}

/** Every tool's layout in one home, vibe-kanban's made in /var/tmp as it makes it, all idle for 20 days. */
async function toolsWorld(): Promise<ToolsHome & { varTmp: string }> {
  const world = buildToolsHome(tempDir('aj-tools-'));
  const varTmp = path.join(world.root, 'var-tmp');
  mkdirSync(varTmp);
  const made = await inVarTmp(
    varTmp,
    `mkdir -p "${path.dirname(VIBE_KANBAN)}"
git -C "${world.shop}" worktree add -q -b vk/3f2a-add-login "${VIBE_KANBAN}"`,
    {},
  );
  expect(made.stderr).toBe('');
  world.made['vibe-kanban'] = [VIBE_KANBAN];
  backdate(world.root, daysAgo(20));
  return { ...world, varTmp };
}

const EXPECTED: Record<string, string> = {
  'claude-code:agent-a1b2c3d4': 'refused git-locked',
  'container-use:fluffy-lion': 'unfinished unique-commits',
};

describe('built-in worktree sets', () => {
  it('a report-only pass over a home of every tool lists each worktree under its set, and nothing else', async () => {
    const w = await toolsWorld();
    const work = tempDir('aj-tools-run-');
    const before = inventory(w.root);

    const result = await inVarTmp(
      w.varTmp,
      `exec "${process.execPath}" "${CLI}" run --report-only --json --log-level error --home "${w.home}" --report-dir "${work}"`,
      ownHomeEnv(w.home),
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    for (const [set, worktrees] of Object.entries(w.made)) {
      for (const worktree of worktrees) {
        const item = itemAt(report, worktree);
        expect(item.provider, worktree).toBe('worktrees');
        expect(item.detail, worktree).toMatch(new RegExp(`^set ${set} \\(`));
        const expected = EXPECTED[`${set}:${path.basename(worktree)}`] ?? 'would-delete idle-clean';
        expect(`${item.verdict} ${item.reason}`, `${worktree}: ${item.detail}`).toBe(expected);
      }
    }
    // Codex's own record of the worktree: its thread and the repository it came from.
    const codex = itemAt(report, w.made.codex?.[0] as string);
    expect(codex.detail).toContain(`Codex thread ${w.codexThread}`);
    expect(codex.detail).toContain(`source repository ${w.shop}`);
    expect(itemAt(report, w.made.conductor?.[0] as string).detail).toContain('idleAfter 2w of set conductor');

    // The user's own worktrees are never candidates, nor is anything inside them.
    const items = report.items.map((item) => item.path ?? '');
    for (const own of w.own) expect(items.filter((p) => p === own || p.startsWith(`${own}/`))).toEqual([]);
    // The Agent Manager's half-deleted worktree is the kilo provider's alone.
    expect(report.items.filter((item) => item.path === w.kiloDelete)).toEqual([
      expect.objectContaining({ provider: 'kilo', kind: 'quarantine', reason: 'kilo-delete-leftover' }),
    ]);
    const found = report.items.filter((item) => item.provider === 'worktrees').length;
    expect(found).toBe(Object.values(w.made).flat().length);
    // Report-only: nothing changed but what SQLite keeps beside kilo.db, opened read-only.
    const kiloData = path.relative(w.root, path.join(w.home, '.local', 'share', 'kilo'));
    expectOnly(before, inventory(w.root), { ignore: (key) => sqliteCompanion(key) || key === kiloData });
  });

  it("follows $CODEX_HOME and $CLAUDE_CONFIG_DIR for the user's own home only", async () => {
    const root = tempDir('aj-tools-env-');
    const home = path.join(root, 'home');
    const shop = makeRepo(path.join(home, 'src', 'shop'));
    const codexHome = path.join(root, 'codex-elsewhere');
    const moved = codexAppWorktree(shop, path.join(codexHome, 'worktrees', 'c3d4', 'shop'), 'thread-1');
    const unmoved = codexAppWorktree(shop, path.join(home, '.codex', 'worktrees', 'e5f6', 'shop'), 'thread-2');
    const configDir = path.join(root, 'claude-config');
    const api = makeRepo(path.join(root, 'work', 'api'));
    const viaConfigDir = addWorktree(api, path.join(api, '.claude', 'worktrees', 'refactor'), 'worktree-refactor');
    put(path.join(configDir, '.claude.json'), JSON.stringify({ projects: { [api]: {} } }));
    backdate(root, daysAgo(20));
    const env = ownHomeEnv(home, { CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: configDir });

    const own = await pass({ dir: tempDir(), config: { homes: [home] }, only: ['worktrees'], reportOnly: true, env });
    expect(own.report.items.map((item) => item.path).sort()).toEqual([moved, viaConfigDir].sort());

    // Another user's home: the variables describe whoever runs the pass, so the defaults apply.
    const other = await pass({
      dir: tempDir(),
      config: { homes: [home] },
      only: ['worktrees'],
      reportOnly: true,
      env: { ...env, HOME: '/nonexistent-home' },
    });
    expect(other.report.items.map((item) => item.path)).toEqual([unmoved]);
  });

  it('overrides a built-in set by name in the keys given, turns one off, and lets a configured root take one read from Claude Code’s state', async () => {
    const w = await toolsWorld();
    const elsewhere = codexAppWorktree(w.shop, path.join(w.home, 'elsewhere', 'f7a8', 'shop'), 'thread-3');
    backdate(path.dirname(path.dirname(elsewhere)), daysAgo(20));
    backdate(path.join(w.shop, '.git', 'worktrees'), daysAgo(20));
    const config = {
      homes: [w.home],
      providers: {
        worktrees: {
          sets: [
            { name: 'cursor', enabled: false },
            { name: 'conductor', idleAfter: '30d' },
            { name: 'codex', roots: ['~/elsewhere/*'] },
            { name: 'mine', roots: ['~/src/*/.claude/worktrees'], idleAfter: '60d' },
          ],
        },
      },
    };

    const { report } = await pass({
      dir: tempDir(),
      config,
      only: ['worktrees'],
      reportOnly: true,
      env: ownHomeEnv(w.home),
    });

    const paths = report.items.map((item) => item.path);
    expect(paths).not.toContain(w.made.cursor?.[0]);
    expect(paths).not.toContain(w.made.codex?.[0]);
    expect(itemAt(report, elsewhere).detail).toMatch(
      /^set codex \(Codex\): .*codex-worktree\.json names Codex thread thread-3/,
    );
    const conductor = itemAt(report, w.made.conductor?.[0] as string);
    expect(`${conductor.verdict} ${conductor.reason}`).toBe('kept not-idle');
    expect(conductor.detail).toContain('idleAfter 30d of set conductor');
    // Claude Code's repository root is also mine's: the root read from its state gives way, and the
    // folder is listed once, its worktrees judged by mine alone.
    const featureAuth = path.join(w.shop, '.claude', 'worktrees', 'feature-auth');
    expect(paths.filter((p) => p === featureAuth)).toHaveLength(1);
    const once = itemAt(report, featureAuth);
    expect(`${once.verdict} ${once.reason}`).toBe('kept not-idle');
    expect(once.detail).toMatch(/^set mine: .*idleAfter 60d of set mine/);
    expect(report.providers.filter((entry) => entry.root === path.dirname(featureAuth))).toHaveLength(1);
  });
});

describe('what `agent-janitor config` shows and refuses', () => {
  const configFile = (dir: string, sets: unknown[]) => {
    const file = path.join(dir, 'agent-janitor.yaml');
    writeFileSync(file, JSON.stringify({ providers: { worktrees: { sets } } }));
    return file;
  };

  it('prints every built-in set, with what the config changed', async () => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    const result = await runCli(
      ['config', '--config', configFile(dir, [{ name: 'cursor', enabled: false }]), '--home', home],
      { env: ownHomeEnv(home) },
    );

    expect(result.code).toBe(0);
    const printed = parse(result.stdout.replace(/^#.*\n/, '')) as {
      providers: { worktrees: { sets: Array<{ name: string; roots: string[]; idleAfter: string; enabled: boolean }> } };
    };
    const sets = printed.providers.worktrees.sets;
    expect(sets.map((set) => set.name)).toEqual([
      'codex',
      'claude-code',
      'claude-squad',
      'conductor',
      'container-use',
      'cursor',
      'vibe-kanban',
      'opencode',
      'kilo',
      'copilot',
    ]);
    expect(sets.find((set) => set.name === 'codex')).toEqual({
      name: 'codex',
      roots: ['{codex-home}/worktrees/*'],
      idleAfter: '7d',
      enabled: true,
    });
    expect(sets.find((set) => set.name === 'cursor')?.enabled).toBe(false);
    expect(sets.find((set) => set.name === 'claude-code')?.roots).toEqual([
      '{claude-projects}/.claude/worktrees',
      '~/.claude-worktrees/*',
    ]);
  });

  it.each([
    [
      "Owl's job worktrees",
      [{ name: 'owlish', roots: ['~/.local/share/coding-owl/worktrees'] }],
      ['~/.local/share/coding-owl/worktrees', 'HOME/.local/share/coding-owl/worktrees', "Coding Owl's job worktrees"],
    ],
    [
      "Kilo Code's checkpoint repositories",
      [{ name: 'snapshots', roots: ['{kilo-data}/snapshot'] }],
      ['{kilo-data}/snapshot', 'HOME/.local/share/kilo/snapshot', "Kilo Code's checkpoint repositories"],
    ],
    [
      'a root inside a checkpoint repository folder',
      [{ name: 'deep', roots: ['~/.local/share/opencode/snapshot/*'] }],
      ['HOME/.local/share/opencode/snapshot', "opencode's checkpoint repositories"],
    ],
    [
      "another configured set's roots",
      [
        { name: 'agents', roots: ['~/agents/*'] },
        { name: 'codex', roots: ['~/agents/codex'] },
      ],
      [
        'worktrees set agents (~/agents/*, that is HOME/agents/*)',
        'worktrees set codex (~/agents/codex, that is HOME/agents/codex)',
      ],
    ],
  ])('exits 2 naming the roots when a set overlaps %s', async (_what, sets, named) => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    const result = await runCli(['config', '--config', configFile(dir, sets), '--home', home], {
      env: ownHomeEnv(home),
    });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    for (const text of named) expect(result.stderr).toContain(text.replace('HOME', home));
  });

  it('lets a configured set take a built-in set’s root (the built-in one steps aside); refuses an unknown anchor', async () => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    const env = ownHomeEnv(home);
    // A config written before the built-in sets: its own set for claude-squad's folder, and one
    // for a root of Claude Code's set.
    const mine = [
      { name: 'squad', roots: ['~/.claude-squad/worktrees'] },
      { name: 'desktop', roots: ['~/.claude-worktrees/*'] },
    ];
    const accepted = await runCli(['config', '--config', configFile(dir, mine), '--home', home], { env });
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    const sets = (parse(accepted.stdout.replace(/^#.*\n/, '')) as { providers: { worktrees: { sets: unknown[] } } })
      .providers.worktrees.sets;
    expect(sets).toEqual(
      expect.arrayContaining([
        {
          name: 'claude-squad',
          roots: ['~/.claude-squad/worktrees', '~/.claude-squad/worktrees/*'],
          idleAfter: '7d',
          enabled: false,
        },
        { name: 'claude-code', roots: ['{claude-projects}/.claude/worktrees'], idleAfter: '3d', enabled: true },
        { name: 'squad', roots: ['~/.claude-squad/worktrees'], idleAfter: '3d', enabled: true },
      ]),
    );
    // Named in the config, the built-in set keeps its roots, and the overlap is refused.
    const both = await runCli(
      ['config', '--config', configFile(dir, [...mine, { name: 'claude-squad', idleAfter: '9d' }]), '--home', home],
      { env },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('worktrees set claude-squad (~/.claude-squad/worktrees');
    expect(both.stderr).toContain('and worktrees set squad (~/.claude-squad/worktrees');

    const unknown = await runCli(
      ['config', '--config', configFile(dir, [{ name: 'x', roots: ['{nowhere}/worktrees'] }]), '--home', home],
      { env },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('providers.worktrees.sets[0].roots[0]');
    expect(unknown.stderr).toContain('unknown anchor {nowhere}');
  });
});

describe('roots read from a tool state are taken with care', () => {
  it('leaves a project inside Owl’s worktrees to Owl, and one the state’s owner does not own alone', async () => {
    const root = tempDir('aj-tools-state-');
    const home = path.join(root, 'home');
    const shop = makeRepo(path.join(home, 'src', 'shop'));
    // Claude Code ran inside an Owl job's worktree and made a worktree of its own there.
    const job = addWorktree(shop, path.join(home, '.local', 'share', 'coding-owl', 'worktrees', '7'), 'owl/job-7');
    const inJob = addWorktree(shop, path.join(job, '.claude', 'worktrees', 'agent-1'), 'worktree-agent-1');
    // A repository someone else owns, named in this user's .claude.json.
    const theirs = makeRepo(path.join(root, 'theirs'));
    const theirWorktree = addWorktree(theirs, path.join(theirs, '.claude', 'worktrees', 'x'), 'worktree-x');
    chownSync(theirs, 54_321, 54_321);
    const ours = addWorktree(shop, path.join(shop, '.claude', 'worktrees', 'ours'), 'worktree-ours');
    put(path.join(home, '.claude.json'), JSON.stringify({ projects: { [job]: {}, [theirs]: {}, [shop]: {} } }));
    backdate(root, daysAgo(20));

    const { report } = await pass({
      dir: tempDir(),
      config: { homes: [home] },
      only: ['worktrees'],
      reportOnly: true,
      env: ownHomeEnv(home),
    });

    const paths = report.items.map((item) => item.path);
    expect(paths).toEqual([ours]);
    expect(paths).not.toContain(inJob);
    expect(paths).not.toContain(theirWorktree);
  });

  it('a .claude.json that cannot be read fails that root alone, naming the file; the other sets go on', async () => {
    const root = tempDir('aj-tools-broken-');
    const home = path.join(root, 'home');
    const shop = makeRepo(path.join(home, 'src', 'shop'));
    const cursor = path.join(home, '.cursor', 'worktrees', 'shop', 'Ab3dE');
    mkdirSync(path.dirname(cursor), { recursive: true });
    sh(shop, 'worktree', 'add', '-q', '--detach', cursor, 'HEAD');
    const claudeJson = put(path.join(home, '.claude.json'), '{"projects": {"/home/ana/src/shop": {');
    backdate(root, daysAgo(20));

    const { report, exitCode } = await pass({
      dir: tempDir(),
      config: { homes: [home] },
      only: ['worktrees'],
      reportOnly: true,
      env: ownHomeEnv(home),
    });

    expect(exitCode).toBe(1);
    const broken = report.providers.filter((entry) => !entry.ok);
    expect(broken).toEqual([
      {
        provider: 'worktrees',
        root: claudeJson,
        ok: false,
        error: expect.stringContaining(`${claudeJson} cannot be read`),
      },
    ]);
    expect(itemAt(report, cursor).verdict).toBe('would-delete');
  });

  it('leaves what Claude Code made inside another tool’s worktree to that tool’s set: no overlap, one item', async () => {
    const root = tempDir('aj-tools-nested-');
    const home = path.join(root, 'home');
    const shop = makeRepo(path.join(home, 'src', 'shop'));
    // Conductor runs Claude Code in its workspace; Claude Code records the workspace as a project
    // and isolates a background agent in a worktree of its own there.
    const workspace = addWorktree(shop, path.join(home, 'conductor', 'workspaces', 'shop', 'lisbon'), 'ana/lisbon');
    const agent = addWorktree(
      shop,
      path.join(workspace, '.claude', 'worktrees', 'agent-9f8e7d6c'),
      'worktree-agent-9f8e7d6c',
    );
    put(path.join(home, '.claude.json'), JSON.stringify({ projects: { [workspace]: {} } }));
    backdate(root, daysAgo(20));

    const { report, exitCode } = await pass({
      dir: tempDir(),
      config: { homes: [home] },
      only: ['worktrees'],
      reportOnly: true,
      env: ownHomeEnv(home),
    });

    expect(exitCode).toBe(0);
    expect(report.items.map((item) => item.path)).toEqual([workspace]);
    expect(report.items[0]?.detail).toMatch(/^set conductor \(Conductor\): /);
    expect(report.items[0]?.verdict).not.toMatch(/delete/);
    expect(report.providers.map((entry) => entry.root)).not.toContain(path.dirname(agent));
  });

  it('never takes a worktree for a folder of worktrees: no item for a submodule inside one', async () => {
    const root = tempDir('aj-tools-squad-');
    const home = path.join(root, 'home');
    const shop = makeRepo(path.join(home, 'src', 'shop'));
    const lib = makeRepo(path.join(root, 'lib'));
    // A branch prefix without a slash puts the worktree right in claude-squad's folder.
    const squad = addWorktree(shop, path.join(home, '.claude-squad', 'worktrees', 'fix_18a2b3c4'), 'fix');
    sh(squad, 'submodule', 'add', '-q', lib, 'vendor');
    sh(squad, 'commit', '-q', '-m', 'vendor');
    sh(shop, 'branch', 'keep-fix', 'fix');
    backdate(root, daysAgo(20));

    const { report } = await pass({
      dir: tempDir(),
      config: { homes: [home] },
      only: ['worktrees'],
      reportOnly: true,
      env: ownHomeEnv(home),
    });

    expect(report.items.map((item) => `${item.path} ${item.verdict} ${item.reason}`)).toEqual([
      `${squad} refused has-submodule`,
    ]);
  });
});

/** What the CLI says of a home where Claude Code's data is but its list of projects is not. */
describe("Claude Code's data without ~/.claude.json", () => {
  const said = (data: string, missing: string) =>
    `Claude Code's data is in ${data}, but ${missing}: the worktrees it makes in its projects' repositories (.claude/worktrees) were not looked at`;

  /** A report-only pass of the worktrees provider over `home` as its own user, through the built CLI. */
  async function reportOnly(home: string, env: NodeJS.ProcessEnv = {}) {
    const reportDir = tempDir('aj-claude-report-');
    const result = await runCli(
      ['run', '--report-only', '--only', 'worktrees', '--home', home, '--report-dir', reportDir],
      {
        env: ownHomeEnv(home, env),
      },
    );
    const report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as Report;
    return { result, report, markdown: readFileSync(path.join(reportDir, 'report.md'), 'utf8') };
  }

  it('is one warning on stderr, in the summary, report.md and the worktrees entry of report.json; exit 0', async () => {
    const root = tempDir('aj-claude-nostate-');
    const home = path.join(root, 'home');
    const shop = makeRepo(path.join(home, 'src', 'shop'));
    const feature = addWorktree(shop, path.join(shop, '.claude', 'worktrees', 'feature-auth'), 'worktree-feature-auth');
    put(path.join(home, '.claude', 'projects', '-home-ana-src-shop', 'session.jsonl'), '{"type":"user"}\n');
    backdate(root, daysAgo(20));
    const claudeJson = path.join(home, '.claude.json');
    const warning = said(path.join(home, '.claude'), `${claudeJson} (its list of projects) does not exist`);

    const { result, report, markdown } = await reportOnly(home);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('would reclaim 0 B (0 items)');
    expect(result.stdout).toContain(`  warning: ${warning}\n`);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as { level: number; msg: string })).toEqual([
      expect.objectContaining({ level: 40, msg: warning }),
    ]);
    expect(report.providers).toEqual([{ provider: 'worktrees', root: claudeJson, ok: true, warning }]);
    expect(markdown).toContain(`## Warnings\n\n- ${warning}\n`);

    // With its list of projects, the worktree is found, and nothing is said.
    put(claudeJson, JSON.stringify({ projects: { [shop]: {} } }));
    const listed = await reportOnly(home);
    expect(listed.result).toMatchObject({ code: 0, stderr: '' });
    expect(listed.report.providers.filter((entry) => entry.warning)).toEqual([]);
    expect(itemAt(listed.report, feature)).toMatchObject({ verdict: 'would-delete', reason: 'idle-clean' });
  });

  it('names ~/.claude-worktrees, or $CLAUDE_CONFIG_DIR and both lists, when that is where its data is', async () => {
    const root = tempDir('aj-claude-nostate-');
    const home = path.join(root, 'home');
    mkdirSync(path.join(home, '.claude-worktrees', 'shop'), { recursive: true });
    const older = await reportOnly(home);
    expect(older.result.code).toBe(0);
    // Its folder of worktrees is still looked at; the worktrees in the projects' repositories are not.
    expect(older.report.providers.map((entry) => entry.root)).toContain(path.join(home, '.claude-worktrees', 'shop'));
    expect(older.report.providers.flatMap((entry) => entry.warning ?? [])).toEqual([
      said(
        path.join(home, '.claude-worktrees'),
        `${path.join(home, '.claude.json')} (its list of projects) does not exist`,
      ),
    ]);

    const own = path.join(root, 'own');
    const configDir = path.join(root, 'claude-config');
    mkdirSync(own);
    mkdirSync(configDir);
    const moved = await reportOnly(own, { CLAUDE_CONFIG_DIR: configDir });
    expect(moved.result.code).toBe(0);
    expect(moved.report.providers.flatMap((entry) => entry.warning ?? [])).toEqual([
      said(
        configDir,
        `neither ${path.join(configDir, '.claude.json')} nor ${path.join(own, '.claude.json')} (its list of projects) exists`,
      ),
    ]);
  });
});
