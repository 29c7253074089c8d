import { randomUUID } from 'node:crypto';
import {
  chownSync,
  copyFileSync,
  existsSync,
  lutimesSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../../src/model/types.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { itemAt } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, type RealUser } from '../../helpers/users.js';
import { stateOf } from '../../support/real-clis/run.js';
import { claudeWorld, slugOf, type ClaudeWorld } from './fixtures.js';
import { living } from './processes.js';

/** `sleep` under the name `claude`: a process whose executable is Claude Code's, as /proc shows it. */
function claudeExecutable(dir: string): string {
  const bin = path.join(dir, 'bin', 'claude');
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync('/bin/sleep', bin);
  return bin;
}

const OLD = 40;

/**
 * What Claude Code 2.1.332 leaves in a config folder for one session, as the real CLI writes it
 * (real-cli.slow.test.ts checks that layout): `session-env/<sid>/`, `debug/<sid>.txt` (and the
 * `latest` link to the newest), a shell snapshot, the transcript `projects/<slug>/<sid>.jsonl` with
 * `<sid>/tool-results/` and `<sid>/subagents/`, `file-history/<sid>/`. The todo list
 * `todos/<sid>-agent-<sid>.json` is what earlier versions wrote (the CLI here writes none).
 * Everything dated `days` ago.
 */
function sessionState(config: string, project: string, days: number, sid = randomUUID()) {
  const slug = path.join(config, 'projects', slugOf(project));
  const made = {
    sid,
    env: path.join(config, 'session-env', sid),
    debug: put(path.join(config, 'debug', `${sid}.txt`), '2026-10-01T10:00:00.000Z [DEBUG] started\n'),
    todos: put(path.join(config, 'todos', `${sid}-agent-${sid}.json`), '[]'),
    snapshot: put(
      path.join(config, 'shell-snapshots', `snapshot-bash-${Date.now()}-${sid.slice(0, 6)}.sh`),
      'export PATH=/usr/bin\n',
    ),
    transcript: put(path.join(slug, `${sid}.jsonl`), '{"type":"user","message":"hi"}\n'),
    toolResults: path.join(slug, sid, 'tool-results'),
    toolResult: put(path.join(slug, sid, 'tool-results', 'b8nnggd23.txt'), 'line\n'.repeat(2000)),
    subagent: put(path.join(slug, sid, 'subagents', 'agent-a1b2c3d4e5f60718.jsonl'), '{"type":"assistant"}\n'),
    history: put(path.join(config, 'file-history', sid, 'a1b2c3d4@v1'), 'old content\n'),
  };
  put(path.join(made.env, 'sessionstart-hook-0.sh'), 'export A=1\n');
  for (const entry of [made.env, made.debug, made.todos, made.snapshot, made.transcript, path.join(slug, sid)])
    backdate(entry, daysAgo(days));
  backdate(path.join(config, 'file-history', sid), daysAgo(days));
  return made;
}

const verdictOf = (report: Report, at: string) => {
  const item = itemAt(report, at);
  return `${item.kind} ${item.verdict} ${item.reason}`;
};
const retentionItems = (report: Report) => report.items.filter((item) => item.kind === 'owner-retention');
const rel = (w: ClaudeWorld, at: string) => path.relative(w.dir, at);
/** The entries of the world below `at` (itself included), as the inventory names them. */
const under = (w: ClaudeWorld, before: Map<string, unknown>, at: string) =>
  [...before.keys()].filter((key) => key === rel(w, at) || key.startsWith(`${rel(w, at)}/`));

describe("claude-code: Claude Code's own retention, where Claude Code did not apply it", () => {
  const [owner, stranger] = addUsers(2) as [RealUser, RealUser];

  it('removes what its own sweep would, past 30 days where no setting says otherwise: session-env folders, debug logs but latest, todos, shell snapshots, the tool results of a session whose transcript is gone; transcripts, subagents and file history stay, reported', async () => {
    const w = claudeWorld();
    const old = sessionState(w.config, '/work/shop', OLD);
    // Claude Code's own sweep took this transcript and left its tool results (a report against 2.1.272).
    const orphaned = sessionState(w.config, '/work/shop', OLD);
    rmSync(orphaned.transcript);
    // Some of a session's tool results past the period, one written since: the old ones go one by one.
    const mixed = sessionState(w.config, '/work/cart', OLD);
    rmSync(mixed.transcript);
    const fresh = put(path.join(mixed.toolResults, 'recent', 'c1.txt'), 'recent\n');
    backdate(fresh, daysAgo(5));
    const young = sessionState(w.config, '/work/shop', 10);
    symlinkSync(young.debug, path.join(w.config, 'debug', 'latest'));
    lutimesSync(path.join(w.config, 'debug', 'latest'), daysAgo(OLD), daysAgo(OLD));
    const before = w.snapshot();

    const { report, exitCode } = await w.pass();

    expect(exitCode).toBe(0);
    const gone = [
      ...[old, orphaned, mixed].flatMap((s) => [s.env, s.debug, s.todos, s.snapshot]),
      orphaned.toolResults,
      mixed.toolResult,
    ];
    for (const at of gone) expect(verdictOf(report, at), at).toBe('owner-retention deleted retention-expired');
    const detail = itemAt(report, old.debug).detail;
    expect(detail).toContain("Claude Code's own sweep removes each debug/* log but latest whose mtime is past");
    expect(detail).toContain(
      "(30 days: Claude Code's default, as cleanupPeriodDays is set in none of its settings (no settings file exists))",
    );
    expect(detail).toContain(`no live session has ${old.sid}`);
    expect(itemAt(report, orphaned.toolResults).detail).toContain(
      `the transcript ${orphaned.sid}.jsonl of its session is gone`,
    );
    // Nothing else is an item of the rule: the young, the transcripts and what has one, history, latest.
    expect(
      retentionItems(report)
        .map((item) => item.path)
        .sort(),
    ).toEqual([...gone].sort());
    expect(w.changes(before)).toEqual({
      removed: gone.flatMap((at) => under(w, before, at)).sort(),
      changed: [
        ...['session-env', 'debug', 'todos', 'shell-snapshots'].map((folder) => rel(w, path.join(w.config, folder))),
        rel(w, path.dirname(orphaned.toolResults)),
        rel(w, mixed.toolResults),
      ].sort(),
      added: [],
    });
    expect(existsSync(path.join(mixed.toolResults, 'recent', 'c1.txt'))).toBe(true);
    const state = report.items.find((item) => item.reason === 'claude-state-reported');
    expect(state?.detail).toMatch(
      new RegExp(`transcripts [0-9.]+ (B|KiB) \\(2 in ${path.join(w.config, 'projects')}\\)`),
    );
    expect(state?.detail).toMatch(/subagent transcripts [0-9.]+ (B|KiB)/);
    expect(state?.detail).toMatch(/file history [0-9.]+ (B|KiB)/);

    // A second pass finds nothing more to do.
    const again = w.snapshot();
    const second = await w.pass();
    expect(retentionItems(second.report)).toEqual([]);
    expect(w.changes(again)).toEqual({ removed: [], changed: [], added: [] });
  });

  it('takes the largest cleanupPeriodDays of every settings source: each config folder, the managed file and its drop-ins, the project settings of a live session', async () => {
    const w = claudeWorld({ owner });
    const work = path.join(w.home, '.claude-work');
    const managed = path.join(w.dir, 'etc', 'claude-code');
    const project = path.join(w.dir, 'projects', 'shop');
    const ages = [50, 70, 100, 130, 170];
    const states = ages.map((days) => sessionState(w.config, '/work/old', days));
    const settings = (file: string, days: number) => put(file, JSON.stringify({ cleanupPeriodDays: days }));
    const claude = await living(claudeExecutable(w.dir), ['600'], { env: { CLAUDE_CONFIG_DIR: work }, user: owner });
    mkdirSync(path.join(work, 'sessions'), { recursive: true });
    // Report-only passes, each with one more source: the period is the largest of them all.
    const reached = async (days: number, file: string) => {
      const { report } = await w.pass({ reportOnly: true });
      for (const [k, s] of states.entries())
        if ((ages[k] as number) > days) {
          expect(verdictOf(report, s.debug), `${ages[k]} days old`).toBe(
            'owner-retention would-delete retention-expired',
          );
          expect(itemAt(report, s.debug).detail).toContain(`(${days} days: cleanupPeriodDays ${days} in ${file}`);
        } else expect(report.items.some((item) => item.path === s.debug)).toBe(false);
    };

    settings(path.join(w.config, 'settings.json'), 60);
    await reached(60, path.join(w.config, 'settings.json'));
    // The profile a running Claude Code names, though the pass was told only of ~/.claude.
    settings(path.join(work, 'settings.json'), 80);
    await reached(80, path.join(work, 'settings.json'));
    settings(path.join(managed, 'managed-settings.json'), 90);
    settings(path.join(managed, 'managed-settings.d', '10-retention.json'), 110);
    await reached(110, path.join(managed, 'managed-settings.d', '10-retention.json'));
    // A live session's project: its record names it.
    mkdirSync(project, { recursive: true });
    w.record({ pid: process.pid, sessionId: randomUUID(), cwd: project });
    settings(path.join(project, '.claude', 'settings.json'), 120);
    settings(path.join(project, '.claude', 'settings.local.json'), 140);
    await reached(140, path.join(project, '.claude', 'settings.local.json'));

    const before = w.snapshot();
    const { report } = await w.pass();
    const last = states[4] as (typeof states)[number];
    expect(verdictOf(report, last.debug)).toBe('owner-retention deleted retention-expired');
    // The live session keeps every shell snapshot of its config folder.
    expect(verdictOf(report, last.snapshot)).toBe('owner-retention kept session-live');
    expect(w.changes(before).removed).toEqual(
      [last.env, last.debug, last.todos].flatMap((at) => under(w, before, at)).sort(),
    );
    claude.kill('SIGKILL');
  });

  const unreadable: Array<[string, (w: ClaudeWorld) => Promise<string> | string]> = [
    ['the user settings are no JSON', (w) => put(path.join(w.config, 'settings.json'), '{ "cleanupPeriodDays": 60, }')],
    [
      "the settings of a running Claude Code's CLAUDE_CONFIG_DIR are a link to a disk not mounted here",
      async (w) => {
        const work = path.join(w.home, '.claude-work');
        mkdirSync(path.join(work, 'sessions'), { recursive: true });
        symlinkSync(path.join(w.dir, 'data-disk', 'settings.json'), path.join(work, 'settings.json'));
        await living(claudeExecutable(w.dir), ['600'], { env: { CLAUDE_CONFIG_DIR: work }, user: owner });
        return path.join(work, 'settings.json');
      },
    ],
    [
      'the managed settings set a value Claude Code rejects',
      (w) => put(path.join(w.dir, 'etc', 'claude-code', 'managed-settings.json'), '{"cleanupPeriodDays": 0}'),
    ],
    [
      "a live session's project settings are a link to another user's file",
      (w) => {
        const project = path.join(w.dir, 'projects', 'shop');
        // Outside the world, which is handed to its owner before each pass.
        const theirs = put(path.join(tempDir('aj-theirs-'), 'settings.json'), '{"cleanupPeriodDays": 365}');
        chownSync(theirs, stranger.uid, stranger.gid);
        mkdirSync(path.join(project, '.claude'), { recursive: true });
        symlinkSync(theirs, path.join(project, '.claude', 'settings.json'));
        w.record({ pid: process.pid, sessionId: randomUUID(), cwd: project });
        return path.join(project, '.claude', 'settings.json');
      },
    ],
  ];
  for (const [why, make] of unreadable)
    it(`refuses settings-unknowable the whole class, and changes nothing, while ${why}`, async () => {
      const w = claudeWorld({ owner });
      const s = sessionState(w.config, '/work/old', OLD);
      rmSync(s.transcript);
      const file = await make(w);
      const before = w.snapshot();
      const { report } = await w.pass();
      for (const at of [s.env, s.debug, s.todos, s.snapshot, s.toolResults]) {
        expect(verdictOf(report, at), at).toBe('owner-retention refused settings-unknowable');
        expect(itemAt(report, at).detail).toContain(file);
      }
      expect(itemAt(report, s.debug).detail).toContain('as Claude Code itself skips its sweep');
      expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });
    });

  it('keeps what a live session has (its registry record, a process carrying its session id, a stopped Claude Code), and every shell snapshot while a Claude Code of the folder runs; removes them once those end', async () => {
    const w = claudeWorld({ owner });
    const claude = await living(claudeExecutable(w.dir), ['600'], { user: owner });
    const recorded = sessionState(w.config, '/work/shop', OLD);
    w.record({ pid: claude.pid, sessionId: recorded.sid, cwd: '/work/shop' });
    // Stopped (Ctrl-Z) is alive (rule 26).
    process.kill(claude.pid, 'SIGSTOP');
    await waitFor(() => stateOf(claude.pid) === 'T');
    const carried = sessionState(w.config, '/work/cart', OLD);
    const shell = await living('sleep', ['600'], {
      env: { CLAUDE_CODE_SESSION_ID: carried.sid, CLAUDE_PID: String(claude.pid) },
      user: owner,
    });
    const orphan = sessionState(w.config, '/work/api', OLD);
    const runaway = await living('sleep', ['600'], {
      env: { CLAUDE_CODE_SESSION_ID: orphan.sid, CLAUDE_PID: '999999999' },
      user: owner,
    });
    const before = w.snapshot();

    const { report } = await w.pass();

    for (const at of [recorded.env, recorded.debug, recorded.todos]) {
      expect(verdictOf(report, at), at).toBe('owner-retention kept session-live');
      expect(itemAt(report, at).detail).toContain(`Claude Code is running session ${recorded.sid}`);
    }
    for (const at of [carried.env, carried.debug, carried.todos])
      expect(verdictOf(report, at), at).toBe('owner-retention kept session-process-live');
    for (const at of [orphan.env, orphan.debug, orphan.todos]) {
      expect(verdictOf(report, at), at).toBe('owner-retention refused in-use');
      expect(itemAt(report, at).detail).toContain(`stopping process ${runaway.pid} frees the space`);
    }
    for (const s of [recorded, carried, orphan]) {
      expect(verdictOf(report, s.snapshot)).toBe('owner-retention kept session-live');
      expect(itemAt(report, s.snapshot).detail).toContain('a shell snapshot names no session');
    }
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });

    for (const child of [claude, shell, runaway]) {
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await ended;
    }
    const second = await w.pass();
    for (const s of [recorded, carried, orphan])
      for (const at of [s.env, s.debug, s.todos, s.snapshot])
        expect(verdictOf(second.report, at), at).toBe('owner-retention deleted retention-expired');
  });

  it("finishes the quarantine an interrupted pass left of a session-env folder or a session's tool results, even while the period cannot be known", async () => {
    const w = claudeWorld();
    const s = sessionState(w.config, '/work/shop', OLD);
    rmSync(s.transcript);
    // What a pass killed between its quarantine rename and the delete leaves.
    const leftovers = [
      path.join(w.config, 'session-env', `.${s.sid}.cleanup-${randomUUID()}`),
      path.join(path.dirname(s.toolResults), `.tool-results.cleanup-${randomUUID()}`),
    ];
    for (const leftover of leftovers) {
      put(path.join(leftover, 'half.txt'), 'half deleted\n');
      backdate(leftover, daysAgo(OLD));
    }
    put(path.join(w.config, 'settings.json'), 'not json');
    const before = w.snapshot();

    const { report } = await w.pass();

    for (const leftover of leftovers)
      expect(verdictOf(report, leftover)).toBe('quarantine deleted quarantine-leftover');
    expect(verdictOf(report, s.env)).toBe('owner-retention refused settings-unknowable');
    expect(w.changes(before).removed).toEqual(leftovers.flatMap((at) => under(w, before, at)).sort());
  });

  it("refuses another user's file (foreign-owner) and a link (symlink: neither it nor its target touched), and reads nothing through a linked folder", async () => {
    const w = claudeWorld();
    const s = sessionState(w.config, '/work/shop', OLD);
    chownSync(s.debug, stranger.uid, stranger.gid);
    const outside = put(path.join(w.dir, 'elsewhere', 'notes.txt'), 'a note kept elsewhere\n');
    const target = put(path.join(w.dir, 'elsewhere', 'env', 'keep.sh'), 'export KEEP=1\n');
    const linkedLog = path.join(w.config, 'debug', `${randomUUID()}.txt`);
    symlinkSync(outside, linkedLog);
    const linkedEnv = path.join(w.config, 'session-env', randomUUID());
    symlinkSync(path.dirname(target), linkedEnv);
    for (const link of [linkedLog, linkedEnv]) lutimesSync(link, daysAgo(OLD), daysAgo(OLD));
    // A todos folder that is a link: nothing is read through it.
    const todos = path.join(w.dir, 'elsewhere', 'todos');
    put(path.join(todos, `${s.sid}-agent-${s.sid}.json`), '[]');
    backdate(todos, daysAgo(OLD));
    rmSync(path.join(w.config, 'todos'), { recursive: true });
    symlinkSync(todos, path.join(w.config, 'todos'));
    lutimesSync(path.join(w.config, 'todos'), daysAgo(OLD), daysAgo(OLD));
    const before = w.snapshot();

    const { report } = await w.pass();

    expect(verdictOf(report, s.debug)).toBe('owner-retention refused foreign-owner');
    expect(verdictOf(report, linkedLog)).toBe('owner-retention refused symlink');
    expect(verdictOf(report, linkedEnv)).toBe('owner-retention refused symlink');
    expect(verdictOf(report, path.join(w.config, 'todos'))).toBe('owner-retention refused symlink-in-path');
    for (const at of [s.env, s.snapshot])
      expect(verdictOf(report, at)).toBe('owner-retention deleted retention-expired');
    expect(w.changes(before)).toEqual({
      removed: [...under(w, before, s.env), ...under(w, before, s.snapshot)].sort(),
      changed: [rel(w, path.join(w.config, 'session-env')), rel(w, path.join(w.config, 'shell-snapshots'))],
      added: [],
    });
    expect(readFileSync(outside, 'utf8')).toBe('a note kept elsewhere\n');
    expect(readFileSync(target, 'utf8')).toBe('export KEEP=1\n');
  });
});
