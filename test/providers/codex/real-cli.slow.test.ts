import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { expectOnly } from '../../helpers/git-fixtures.js';
import { type Entry, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import {
  CODEX,
  type Codex,
  codex,
  codexExecInWorktree,
  codexIn,
  codexProfile,
  killCodexBetweenRenames,
  killCodexMidClone,
  killCodexMidTurn,
  lockedInodes,
  marketplaceSource,
  stagingFolders,
} from '../../support/real-clis/codex.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { gitWith, layoutOf, makeProject, modeOf } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { cmdlineOf, waitUntil } from '../../support/real-clis/run.js';
import { cliSandbox, startOf } from '../../support/real-clis/sandbox.js';

let install: CliInstall;
let server: FakeModelServer;

beforeAll(async () => {
  install = await installNpmCli(CODEX);
  if (install.bin) {
    server = await startFakeModelServer({
      reply: (turn) =>
        JSON.stringify(turn.body).includes('work a while') && turn.toolResults === 0
          ? { tool: { name: 'exec_command', input: { cmd: 'sleep 300; echo slept' } } }
          : { text: 'Done.' },
    });
  }
}, 320_000);

afterAll(async () => {
  await server?.close();
});

const alive = (pid: number) => startOf(pid) !== null;
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

function threads(cx: Codex): Array<Record<string, unknown>> {
  const db = new Database(path.join(cx.home, 'state_5.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare('SELECT id, cwd, archived, archived_at, source FROM threads ORDER BY created_at_ms')
      .all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

/**
 * One real pass of the codex provider over the sandbox's home, as its user would run it (their
 * `$CODEX_HOME`), with no minAge: Codex's scratch here is seconds old.
 */
function janitor(
  cx: Codex,
  options: { reportOnly?: boolean; processCheck?: 'auto' | 'off'; codexHomes?: string[]; walMinBytes?: string } = {},
): Promise<PassResult> {
  return pass({
    dir: tempDir('aj-codex-cli-run-'),
    config: {
      homes: [cx.sandbox.home],
      minAge: '0s',
      processCheck: options.processCheck ?? 'auto',
      ...(options.codexHomes ? { providers: { codex: { homes: options.codexHomes } } } : {}),
      ...(options.walMinBytes ? { reclaim: { walMinBytes: options.walMinBytes } } : {}),
    },
    only: ['codex'],
    reportOnly: options.reportOnly ?? false,
    env: { HOME: cx.sandbox.home, CODEX_HOME: cx.home, CODEX_SQLITE_HOME: '' },
  });
}

const verdict = (result: PassResult, folder: string) => {
  const item = itemAt(result.report, folder);
  return `${item.verdict} ${item.reason}`;
};

/** SQLite's files beside a database, which a read-only open (and Codex itself) rewrite. */
const sqliteSide = (key: string) => /\.sqlite-(wal|shm)$/.test(key);

/** Everything of the sandbox that must outlive a pass: the Codex home and the user's projects. */
const everything = (cx: Codex): Map<string, Entry> => inventory(cx.sandbox.root, { exclude: [cx.sandbox.tmp] });
const rel = (cx: Codex, folder: string) => path.relative(cx.sandbox.root, folder);

/** Kills what a killed Codex left running (gone with Codex already, or not), and waits until it has ended. */
async function endOrphans(orphans: readonly number[]): Promise<void> {
  for (const pid of orphans)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone with Codex already.
    }
  await waitUntil('the orphaned shell to die', () => orphans.every((pid) => !alive(pid)), { timeoutMs: 10_000 });
}

describe(`the real Codex ${CODEX.version}`, () => {
  it('clones a marketplace from a git source; a Codex killed mid-clone or between its renames leaves a staging folder and a backup, and a pass deletes the clones, keeps the only copy, and takes the backup once the live copy is whole', async (ctx) => {
    if (!install.bin) {
      console.warn(`skipping the real Codex test: ${install.why}`);
      ctx.skip(install.why);
    }
    const sandbox = cliSandbox(tempDir('aj-codex-cli-'));
    const cx = codexIn(install.bin as string, sandbox, server.port);
    const source = marketplaceSource(sandbox, 'acme');
    const cwd = sandbox.home;
    const live = path.join(cx.marketplaces, 'acme');
    const revision = () => gitWith(sandbox.env, ['--git-dir', source.bare, 'rev-parse', 'HEAD']).trim();

    await codex(cx, ['plugin', 'marketplace', 'add', source.url], cwd);
    expect(layoutOf(cx.marketplaces)).toEqual(['.staging.lock', '.staging/', 'acme/']);
    // `add` writes no install record; only an upgrade that fetched a new revision does.
    expect(layoutOf(live)).toEqual(['.agents/', '.git/', 'README.md']);
    expect(readFileSync(path.join(cx.home, 'config.toml'), 'utf8')).toContain(
      `[marketplaces.acme]\nsource_type = "git"\nsource = "${source.url}"\n`,
    );

    source.publish('one.txt');
    await codex(cx, ['plugin', 'marketplace', 'upgrade'], cwd);
    expect(layoutOf(cx.marketplaces)).toEqual(['.staging-cleanup.lock', '.staging.lock', '.staging/', 'acme/']);
    expect(stagingFolders(cx)).toEqual([]);
    const record = { source_type: 'git', source: source.url, ref_name: null, sparse_paths: [], revision: revision() };
    expect(readJson(path.join(live, '.codex-marketplace-install.json'))).toEqual(record);

    // Killed mid-clone: the staging folder stays with its lock file, and git goes on as an orphan.
    source.publish('two.txt');
    const midClone = await killCodexMidClone(cx, cwd);
    expect(path.basename(midClone.staging)).toMatch(/^marketplace-linux-[A-Za-z0-9]{6}$/);
    expect(layoutOf(midClone.staging)).toEqual(['.lock', 'checkout/']);
    expect(statSync(path.join(midClone.staging, '.lock')).size).toBe(0);
    expect(modeOf(path.join(midClone.staging, '.lock'))).toBe('644');
    expect(lockedInodes().has(statSync(path.join(midClone.staging, '.lock')).ino)).toBe(false);
    expect(existsSync(path.join(midClone.staging, 'checkout', '.git'))).toBe(true);
    const clone = midClone.orphans.find((pid) => cmdlineOf(pid).includes(' clone '));
    expect(clone).toBeDefined();
    expect(alive(clone as number)).toBe(true);
    // The orphaned clone still writes in the staging folder: a pass refuses it.
    const whileCloning = await janitor(cx);
    expect(verdict(whileCloning, midClone.staging)).toBe('refused in-use');
    expect(existsSync(path.join(midClone.staging, 'checkout', '.git'))).toBe(true);
    for (const pid of midClone.orphans) process.kill(pid, 'SIGKILL');
    await waitUntil('the orphaned clone to die', () => !alive(clone as number), { timeoutMs: 10_000 });
    // Its lock is free and nothing is inside: the staging clone goes, and nothing else changes.
    const beforeDead = everything(cx);
    const dead = await janitor(cx);
    expect(verdict(dead, midClone.staging)).toBe('deleted staging-dead');
    expect(dead.report.items.map((item) => item.path)).toEqual([midClone.staging]);
    expectOnly(beforeDead, everything(cx), {
      removed: [rel(cx, midClone.staging)],
      changedDirs: [rel(cx, path.dirname(midClone.staging))],
    });
    expect(stagingFolders(cx)).toEqual([]);
    // Codex's own sweep, at the start of the next upgrade, removes it once its lock is free.
    await codex(cx, ['plugin', 'marketplace', 'upgrade'], cwd);
    expect(stagingFolders(cx)).toEqual([]);
    expect(readJson(path.join(live, '.codex-marketplace-install.json'))).toEqual({ ...record, revision: revision() });

    // Killed between the renames: the backup holds the only copy, the staging folder a whole checkout.
    const before = revision();
    source.publish('three.txt');
    const between = await killCodexBetweenRenames(cx, source, cwd);
    if (between === null) {
      console.warn('skipping the backup half of the real Codex test: strace is not installed');
      return;
    }
    expect(path.basename(between.backup)).toMatch(/^marketplace-backup-[A-Za-z0-9]{6}$/);
    expect(existsSync(live)).toBe(false);
    expect(layoutOf(between.backup)).toEqual(['root/']);
    expect(layoutOf(path.join(between.backup, 'root'))).toEqual([
      '.agents/',
      '.codex-marketplace-install.json',
      '.git/',
      'README.md',
      'one.txt',
      'two.txt',
    ]);
    expect(readJson(path.join(between.backup, 'root', '.codex-marketplace-install.json'))).toEqual({
      ...record,
      revision: before,
    });
    expect(layoutOf(path.join(between.staging))).toEqual(['.lock', 'checkout/']);
    expect(readJson(path.join(between.staging, 'checkout', '.codex-marketplace-install.json'))).toEqual({
      ...record,
      revision: revision(),
    });
    // A pass: the staging clone goes, the backup is the only copy of acme and stays, saying how to restore it.
    const beforeBetween = everything(cx);
    const onlyCopy = await janitor(cx);
    expect(verdict(onlyCopy, between.staging)).toBe('deleted staging-dead');
    expect(verdict(onlyCopy, between.backup)).toBe('unfinished only-copy');
    expect(itemAt(onlyCopy.report, between.backup).detail).toContain(
      `mv ${path.join(between.backup, 'root')} ${live} && rmdir ${between.backup}`,
    );
    expectOnly(beforeBetween, everything(cx), {
      removed: [rel(cx, between.staging)],
      changedDirs: [rel(cx, path.dirname(between.staging))],
    });
    // The next upgrade clones the live copy anew; the backup stays for good.
    await codex(cx, ['plugin', 'marketplace', 'upgrade'], cwd);
    expect(readJson(path.join(live, '.codex-marketplace-install.json'))).toEqual({ ...record, revision: revision() });
    expect(stagingFolders(cx)).toEqual([]);
    expect(existsSync(path.join(between.backup, 'root', '.git'))).toBe(true);
    // Its live copy whole and configured, the backup goes; the live copy and config.toml stay byte for byte.
    const beforeSuperseded = everything(cx);
    const superseded = await janitor(cx);
    expect(verdict(superseded, between.backup)).toBe('deleted backup-superseded');
    expectOnly(beforeSuperseded, everything(cx), {
      removed: [rel(cx, between.backup)],
      changedDirs: [rel(cx, cx.marketplaces)],
    });
    expect(readJson(path.join(live, '.codex-marketplace-install.json'))).toEqual({ ...record, revision: revision() });
  }, 300_000);

  it('makes `exec --worktree` worktrees with codex-thread.json and a thread row; a pass keeps a live or open thread’s worktree and removes an archived one’s, and a killed turn leaves its writer lock and shell', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-codex-cli-'));
    const cx = codexIn(install.bin as string, sandbox, server.port);
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));

    await codexExecInWorktree(cx, repo);
    const roots = layoutOf(path.join(cx.home, 'worktrees'), 2);
    expect(roots).toHaveLength(2);
    expect(roots[0]).toMatch(/^[0-9a-f]{4}\/$/);
    expect(roots[1]).toBe(`${roots[0]}app/`);
    const worktree = path.join(cx.home, 'worktrees', roots[0] as string, 'app');
    expect(readFileSync(path.join(worktree, '.git'), 'utf8')).toBe(
      `gitdir: ${path.join(repo, '.git', 'worktrees', 'app')}\n`,
    );
    const admin = path.join(repo, '.git', 'worktrees', 'app');
    expect(layoutOf(admin)).toEqual([
      'HEAD',
      'ORIG_HEAD',
      'codex-thread.json',
      'commondir',
      'config.worktree',
      'gitdir',
      'index',
      'logs/',
    ]);
    expect(modeOf(path.join(admin, 'codex-thread.json'))).toBe('600');
    const [thread] = threads(cx);
    expect(readFileSync(path.join(admin, 'codex-thread.json'), 'utf8')).toBe(
      JSON.stringify({ version: 1, ownerThreadId: thread?.id }),
    );
    expect(thread).toEqual({ id: thread?.id, cwd: worktree, archived: 0, archived_at: null, source: 'exec' });
    expect(gitWith(sandbox.env, ['worktree', 'list', '--porcelain'], repo)).toContain(`worktree ${worktree}\nHEAD `);
    expect(gitWith(sandbox.env, ['rev-parse', '--abbrev-ref', 'HEAD'], worktree).trim()).toBe('HEAD');
    // A clean exit removes the thread's writer lock file and keeps the worktree.
    expect(layoutOf(path.join(cx.home, 'thread-writer-locks'))).toEqual(['.coordination.lock']);
    expect(layoutOf(cx.home)).toEqual(
      expect.arrayContaining(['sessions/', 'shell_snapshots/', 'state_5.sqlite', 'thread-writer-locks/', 'worktrees/']),
    );

    // The thread is not archived and was active just now: the worktree is kept.
    const open = await janitor(cx);
    expect(verdict(open, worktree)).toBe('kept not-idle');
    expect(verdict(open, path.join(cx.home, 'sessions'))).toBe('kept codex-conversations');
    // Archived with Codex's own command: the set's rule applies at once, and the worktree goes.
    await codex(cx, ['archive', thread?.id as string], repo);
    expect(threads(cx)[0]).toMatchObject({ archived: 1 });
    const beforeArchived = everything(cx);
    const archived = await janitor(cx);
    expect(verdict(archived, worktree)).toBe('deleted thread-archived');
    expect(gitWith(sandbox.env, ['worktree', 'list', '--porcelain'], repo)).not.toContain(worktree);
    // git drops `.git/worktrees` with its last entry.
    expectOnly(beforeArchived, everything(cx), {
      removed: [rel(cx, worktree), rel(cx, path.dirname(admin))],
      changedDirs: [rel(cx, path.dirname(worktree)), rel(cx, path.join(repo, '.git'))],
      ignore: sqliteSide,
    });

    // While a session runs, its writer lock keeps its worktree, whatever else is said of it.
    let whileLive: PassResult | null = null;
    const killed = await killCodexMidTurn(cx, repo, 'sleep 300; echo slept', async () => {
      whileLive = await janitor(cx, { reportOnly: true, processCheck: 'off' });
    });
    const second = threads(cx)[1];
    expect(path.basename(killed.lock)).toBe(`${second?.id}.lock`);
    expect(lockedInodes().has(statSync(killed.lock).ino)).toBe(false);
    // The command the model ran outlives Codex, in the worktree.
    const sleeper = killed.orphans.find((pid) => killed.commands.get(pid) === 'sleep 300');
    expect(sleeper).toBeDefined();
    expect(alive(sleeper as number)).toBe(true);
    expect(readlinkSync(`/proc/${sleeper}/cwd`)).toBe(second?.cwd);
    // The first worktree is gone, so git may give this one's admin entry the same name: ask git.
    const secondAdmin = gitWith(sandbox.env, ['rev-parse', '--absolute-git-dir'], second?.cwd as string).trim();
    expect(readJson(path.join(secondAdmin, 'codex-thread.json'))).toEqual({ version: 1, ownerThreadId: second?.id });
    expect(verdict(whileLive as unknown as PassResult, second?.cwd as string)).toBe('kept thread-live');

    // The killed session's thread, archived: the orphaned shell still inside keeps the worktree (in use),
    // then, once it is gone, the worktree goes; sessions, the database and config.toml stay.
    await codex(cx, ['archive', second?.id as string], repo);
    const inUse = await janitor(cx);
    expect(verdict(inUse, second?.cwd as string)).toBe('refused in-use');
    process.kill(sleeper as number, 'SIGKILL');
    await waitUntil('the orphaned shell to die', () => !alive(sleeper as number), { timeoutMs: 10_000 });
    const beforeGone = everything(cx);
    const gone = await janitor(cx);
    expect(verdict(gone, second?.cwd as string)).toBe('deleted thread-archived');
    expectOnly(beforeGone, everything(cx), {
      removed: [rel(cx, second?.cwd as string), rel(cx, path.dirname(secondAdmin))],
      changedDirs: [rel(cx, path.dirname(second?.cwd as string)), rel(cx, path.join(repo, '.git'))],
      ignore: sqliteSide,
    });
  }, 180_000);

  it('a work profile (CODEX_HOME=~/.codex-work) sharing the worktree root: a pass that reads ~/.codex keeps what the profile’s live thread owns, and names the profile to keep its open thread’s worktree once no process is left', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-codex-cli-'));
    const shared = path.join(sandbox.root, 'codex-worktrees');
    const desktop = `[desktop]\ngit-worktree-root = "${shared}"\n`;
    const cx = codexIn(install.bin as string, sandbox, server.port, desktop);
    const work = codexProfile(
      install.bin as string,
      sandbox,
      server.port,
      path.join(sandbox.home, '.codex-work'),
      desktop,
    );
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    // The user's own environment file: ignored by git, so a clean worktree would go with it.
    writeFileSync(path.join(repo, '.git', 'info', 'exclude'), '.env.local\n');

    // The default profile's thread: its database is what makes the pass judge the shared root.
    await codexExecInWorktree(cx, repo);
    const [mine] = threads(cx);
    expect(path.dirname(path.dirname(mine?.cwd as string))).toBe(shared);

    // The work profile's session, live: its thread is in its own database only. A report-only pass
    // with no process check shows the provider's own judgement; a deleting one changes nothing.
    const live: {
      judged?: PassResult;
      deleting?: PassResult;
      before?: Map<string, Entry>;
      after?: Map<string, Entry>;
    } = {};
    const killed = await killCodexMidTurn(work, repo, 'sleep 300; echo slept', async () => {
      const [theirs] = threads(work);
      writeFileSync(path.join(theirs?.cwd as string, '.env.local'), 'API_KEY=only-here\n');
      live.before = everything(cx);
      live.judged = await janitor(cx, { reportOnly: true, processCheck: 'off' });
      live.deleting = await janitor(cx);
      live.after = everything(cx);
    });
    const [theirs] = threads(work);
    const worktree = theirs?.cwd as string;
    expect(path.dirname(path.dirname(worktree))).toBe(shared);
    expect(threads(cx).map((row) => row.id)).not.toContain(theirs?.id);
    expect(killed.lock).toBe(path.join(work.home, 'thread-writer-locks', `${theirs?.id}.lock`));
    const judged = live.judged as PassResult;
    expect(verdict(judged, worktree)).toBe('kept thread-live');
    expect(itemAt(judged.report, worktree).detail).toContain(`its writer lock ${killed.lock} is held`);
    expect(verdict(judged, mine?.cwd as string)).toBe('kept not-idle');
    expect(live.deleting?.report.totals.deleted).toBe(0);
    expectOnly(live.before as Map<string, Entry>, live.after as Map<string, Entry>, { ignore: sqliteSide });

    // Codex killed and its shell gone, no process names the profile: named in the config, its open
    // thread (active just now) keeps the worktree, .env.local and all.
    await endOrphans(killed.orphans);
    const beforeNamed = everything(cx);
    const named = await janitor(cx, { codexHomes: [work.home] });
    expect(verdict(named, worktree)).toBe('kept not-idle');
    expect(itemAt(named.report, worktree).detail).toContain(`is not archived in ${work.home}`);
    expectOnly(beforeNamed, everything(cx), { ignore: sqliteSide });
    expect(readFileSync(path.join(worktree, '.env.local'), 'utf8')).toBe('API_KEY=only-here\n');
  }, 180_000);

  it('killed mid-turn, leaves write-ahead logs of its own; a pass checkpoints them, and Codex started again resumes its threads', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-codex-cli-'));
    const cx = codexIn(install.bin as string, sandbox, server.port);
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    await codexExecInWorktree(cx, repo);
    // A clean exit mostly leaves no log: SQLite's last close checkpoints and removes it, unless
    // another reader has the database open at that moment (a pass of another test on this machine
    // reads a live Codex's home, rule 27), so it is not held to that here.
    const logs = () =>
      readdirSync(cx.home)
        .filter((name) => name.endsWith('.sqlite-wal'))
        .sort();
    expect(readdirSync(cx.home)).toEqual(expect.arrayContaining(['state_5.sqlite', 'logs_2.sqlite']));

    const killed = await killCodexMidTurn(cx, repo, 'sleep 300; echo slept');
    // The model's shell outlives Codex; it holds none of Codex's databases, and goes.
    await endOrphans(killed.orphans);
    const left = logs();
    expect(left).toEqual(expect.arrayContaining(['state_5.sqlite-wal', 'logs_2.sqlite-wal']));
    const sizes = new Map(left.map((name) => [name, statSync(path.join(cx.home, name)).size]));
    // The thread database's log holds the killed turn's pages (others may be empty, truncated by Codex).
    expect(sizes.get('state_5.sqlite-wal')).toBeGreaterThan(0);
    const before = threads(cx);
    expect(before).toHaveLength(2);

    const planned = await janitor(cx, { reportOnly: true, walMinBytes: '1B' });
    for (const [name, bytes] of sizes) {
      if (bytes === 0) continue;
      const item = itemAt(planned.report, path.join(cx.home, name));
      expect(`${item.verdict} ${item.reason}`, name).toBe('would-delete wal-left-behind');
      expect(item.bytes).toBe(bytes);
    }
    const result = await janitor(cx, { walMinBytes: '1B' });
    for (const [name, bytes] of sizes) {
      if (bytes === 0) continue;
      expect(verdict(result, path.join(cx.home, name)), name).toBe('deleted wal-left-behind');
    }
    expect(logs().filter((name) => statSync(path.join(cx.home, name)).size > 0)).toEqual([]);
    for (const name of ['state_5.sqlite', 'logs_2.sqlite']) {
      const db = new Database(path.join(cx.home, name), { readonly: true, fileMustExist: true });
      expect(db.pragma('integrity_check', { simple: true }), name).toBe('ok');
      db.close();
    }
    // Every thread is there, and Codex itself takes up the one it was killed in.
    expect(threads(cx)).toEqual(before);
    const second = before[1]?.id as string;
    const resumed = await codex(cx, ['exec', 'resume', second, 'say hi again'], repo);
    expect(resumed).toContain('Done.');
    expect(threads(cx).map((row) => row.id)).toEqual(before.map((row) => row.id));
  }, 180_000);
});
