import { randomUUID } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHeld } from '../../../src/model/held.js';
import type { ReportItem } from '../../../src/model/types.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { addUsers, type RealUser } from '../../helpers/users.js';
import { claudeWorld, pidDomain, slugOf, startOf } from './fixtures.js';
import { deadPid, living, shellWriting } from './processes.js';

const SESSION = 'CLAUDE_CODE_SESSION_ID';

describe('claude-code: the session folders of claude-<uid>', () => {
  // Whose the stand-in Claude Code processes are, and the worlds they run in (fixtures.ts).
  const [owner] = addUsers(1) as [RealUser];
  /** The owner as a report names a process's user, and as a pattern. */
  const byOwner = `uid ${owner.uid} (${owner.name})`;
  const byOwnerPattern = byOwner.replace(/[()]/g, '\\$&');

  it('deletes a dead session with its project folder, and keeps what a live registry record names by session or by project', async () => {
    const w = claudeWorld();
    const dead = w.session('/work/shop');
    const live = w.session('/work/cart');
    // `/clear` gave the running Claude Code a new session id; its record still names the first.
    const cleared = w.session('/work/cart');
    w.record({ pid: process.pid, sessionId: live.sid, cwd: '/work/cart' });
    put(path.join(w.config, 'projects', '-work-shop', `${dead.sid}.jsonl`), '{"type":"user"}\n');
    const keep = inventory(w.home);
    const before = w.snapshot();

    const { report, exitCode } = await w.pass();

    expect(exitCode).toBe(0);
    const slug = path.dirname(dead.folder);
    expect(itemAt(report, slug)).toMatchObject({ verdict: 'deleted', reason: 'session-ended', kind: 'task-output' });
    expect(itemAt(report, slug).detail).toContain(
      `the project folder -work-shop goes with its last session folder: session ${dead.sid} has ended`,
    );
    expect(itemAt(report, live.folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(itemAt(report, cleared.folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(itemAt(report, cleared.folder).detail).toContain('Claude Code is running in its project (/work/cart)');
    expect(w.changes(before)).toEqual({
      removed: [
        path.relative(w.dir, slug),
        ...[...before.keys()].filter((key) => key.startsWith(`${path.relative(w.dir, slug)}/`)),
      ].sort(),
      changed: [path.relative(w.dir, w.root)],
      added: [],
    });
    // The transcripts and the registry are never touched.
    expect(inventory(w.home)).toEqual(keep);
  });

  it('keeps nothing for a record whose pid now runs another process (procStart differs), nor for one whose pid is gone; reports them stale', async () => {
    const w = claudeWorld();
    const reused = w.session('/work/reused');
    const gone = w.session('/work/gone');
    w.record({ pid: process.pid, sessionId: reused.sid, cwd: '/work/reused', procStart: '12' });
    const goneFile = w.record({ pid: deadPid(), sessionId: gone.sid, cwd: '/work/gone', procStart: '34' });

    const { report } = await w.pass();

    expect(itemAt(report, path.dirname(reused.folder))).toMatchObject({ verdict: 'deleted', reason: 'session-ended' });
    expect(itemAt(report, path.dirname(reused.folder)).detail).toContain(
      `is stale (pid ${process.pid} is now another process (started at tick ${startOf(process.pid)}, the record says 12))`,
    );
    expect(itemAt(report, path.dirname(gone.folder)).verdict).toBe('deleted');
    const state = report.items.find((item) => item.reason === 'claude-state-reported');
    expect(state).toMatchObject({ verdict: 'kept', path: null, kind: 'task-output' });
    expect(state?.detail).toContain('2 stale registry records');
    expect(state?.detail).toContain(`${path.basename(goneFile)} (pid `);
    expect(existsSync(goneFile)).toBe(true);
  });

  it("refuses liveness-unknown what a record of another pid domain names (a container's, another machine's on a shared home)", async () => {
    const w = claudeWorld();
    const other = w.session('/work/container');
    const bySlug = w.session('/work/container');
    // Its pid means nothing here: dead on this machine, maybe alive where the record was written.
    w.record({
      pid: deadPid(),
      sessionId: other.sid,
      cwd: '/work/container',
      procStart: '77',
      pidDomain: 'linux:0123456789abcdef0123456789abcdef:pid:[4026532999]',
    });
    const before = w.snapshot();

    const { report } = await w.pass();

    for (const folder of [other.folder, bySlug.folder]) {
      expect(itemAt(report, folder)).toMatchObject({ verdict: 'refused', reason: 'liveness-unknown' });
      expect(itemAt(report, folder).detail).toContain(
        `written in pid domain linux:0123456789abcdef0123456789abcdef:pid:[4026532999], and this pass runs in ${pidDomain()}`,
      );
    }
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });
  });

  it('keeps a session whose id a live process carries: kept while its Claude Code runs, refused in-use and held once it outlived it', async () => {
    const w = claudeWorld({ owner });
    const attended = w.session('/work/attended');
    const orphaned = w.session('/work/orphaned');
    const parent = deadPid();
    // Neither process has anything open in the folders: only their environment ties them to the session.
    const child = await living('sleep', ['600'], {
      env: { [SESSION]: attended.sid, CLAUDE_PID: String(process.pid) },
      user: owner,
    });
    const orphan = await living('sleep', ['600'], {
      env: { [SESSION]: orphaned.sid, CLAUDE_PID: String(parent), CLAUDECODE: '1' },
      user: owner,
    });
    const before = w.snapshot();

    const { report } = await w.pass();

    expect(itemAt(report, attended.folder)).toMatchObject({ verdict: 'kept', reason: 'session-process-live' });
    expect(itemAt(report, attended.folder).detail).toContain(
      `process ${child.pid} (sleep 600, run by ${byOwner}) carries ${SESSION}=${attended.sid}`,
    );
    const held = itemAt(report, orphaned.folder);
    expect(held).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(held.detail).toContain(
      `process ${orphan.pid} (sleep 600, run by ${byOwner}) carries ${SESSION}=${orphaned.sid}`,
    );
    expect(held.detail).toContain(`its Claude Code (CLAUDE_PID=${parent}) is gone`);
    expect(held.detail).toContain(`stopping process ${orphan.pid} frees the space`);
    expect(held.bytes).toBeGreaterThan(0);
    expect(isHeld(held)).toBe(true);
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });

    // Once the processes are gone, the sessions are dead.
    child.kill('SIGKILL');
    orphan.kill('SIGKILL');
    await waitFor(() => !existsSync(`/proc/${child.pid}`) && !existsSync(`/proc/${orphan.pid}`));
    const after = await w.pass();
    expect(itemAt(after.report, path.dirname(attended.folder)).verdict).toBe('deleted');
    expect(itemAt(after.report, path.dirname(orphaned.folder)).verdict).toBe('deleted');
  });

  it('refuses in-use a task output a background shell still writes after Claude Code died, naming the shell and its dead CLAUDE_PID; then reports the deleted output it holds open', async () => {
    const w = claudeWorld({ owner });
    const s = w.session('/work/runaway');
    const parent = deadPid();
    const shell = await shellWriting(
      s.output,
      'while :; do echo line; sleep 0.05; done',
      { [SESSION]: s.sid, CLAUDE_PID: String(parent), CLAUDECODE: '1' },
      owner,
    );
    await waitFor(() => statSync(s.output).size > 100);

    const { report } = await w.pass();

    const item = itemAt(report, s.folder);
    expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    // The shell, and the sleep it runs at that moment (which inherited its descriptors).
    expect(item.detail).toMatch(
      new RegExp(
        `^process(es)? ${shell.pid} \\(/bin/bash -c while :; do echo line; sleep 0.05; done, run by ${byOwnerPattern}\\)`,
      ),
    );
    expect(item.detail).toContain(`its Claude Code (CLAUDE_PID=${parent}) is gone`);
    expect(item.detail).toContain('frees the space');
    expect(isHeld(item)).toBe(true);
    expect(item.bytes).toBeGreaterThan(100);

    // Claude Code's own retention removes the session's folder under the live shell.
    rmSync(s.folder, { recursive: true });
    const again = await w.pass();
    const open = itemAt(again.report, s.output);
    expect(open).toMatchObject({ verdict: 'refused', reason: 'in-use', kind: 'task-output' });
    expect(open.detail).toMatch(
      // The shell, and the sleep it may be running at that moment, which inherited its descriptors.
      new RegExp(
        `^b1a2b3c4d\\.output was deleted, but process(es)? ${shell.pid} \\(/bin/bash -c [^;]*; do echo line; sleep 0.05; done, run by ${byOwnerPattern}; fd 1, 2; a background shell of session ${s.sid}, whose Claude Code \\(CLAUDE_PID=${parent}\\) is gone\\).* still holds? it open: [0-9.]+ (B|KiB|MiB) in use that no listing shows; stopping (process ${shell.pid}|those processes) frees the space$`,
      ),
    );
    // The empty project folder waits for its writer.
    expect(again.report.items.some((each) => each.path === path.dirname(s.folder))).toBe(false);
  });

  it('keeps a session folder into which a live adopted shell writes (jobs/*/adopt.json), not one whose shell is gone', async () => {
    const w = claudeWorld();
    const adopted = w.session('/work/adopted');
    const stale = w.session('/work/stale');
    const shell = await living('sleep', ['600']);
    const job = path.join(w.config, 'jobs', 'j1');
    mkdirSync(job, { recursive: true });
    writeFileSync(
      path.join(job, 'adopt.json'),
      JSON.stringify({
        shells: [
          {
            taskId: 'b1a2b3c4d',
            pid: shell.pid,
            procStart: startOf(shell.pid),
            startTimeTicks: startOf(shell.pid),
            command: 'sleep 600',
            outputPath: adopted.output,
          },
          { taskId: 'b9a8b7c6d', pid: shell.pid, procStart: '5', command: 'make', outputPath: stale.output },
        ],
      }),
    );

    const { report } = await w.pass();

    expect(itemAt(report, adopted.folder)).toMatchObject({ verdict: 'kept', reason: 'adopted-shell-live' });
    expect(itemAt(report, adopted.folder).detail).toContain(`the adopted shell ${shell.pid} (sleep 600)`);
    expect(itemAt(report, path.dirname(stale.folder)).verdict).toBe('deleted');
  });

  it('keeps the old session a live session links into (move to background), and removes an agent output link as a link, its transcript intact', async () => {
    const w = claudeWorld();
    const old = w.session('/work/app');
    const moved = w.session('/work/api');
    w.record({ pid: process.pid, sessionId: moved.sid, cwd: '/work/api' });
    symlinkSync(old.output, path.join(moved.folder, 'tasks', 'b5e6f7a8b.output'));
    // A dead session whose agent task output links to its transcript in ~/.claude/projects.
    const agent = w.session('/work/agents');
    const transcript = put(
      path.join(w.config, 'projects', '-work-agents', agent.sid, 'subagents', 'agent-a0123456789abcdef.jsonl'),
      '{"type":"assistant"}\n',
    );
    symlinkSync(transcript, path.join(agent.folder, 'tasks', 'a0123456789abcdef.output'));
    backdate(agent.folder, daysAgo(3));
    const home = inventory(w.home);

    const { report } = await w.pass();

    expect(itemAt(report, old.folder)).toMatchObject({ verdict: 'kept', reason: 'linked-from-live-session' });
    expect(itemAt(report, old.folder).detail).toContain(
      `${path.join(moved.folder, 'tasks', 'b5e6f7a8b.output')} links into it`,
    );
    expect(itemAt(report, path.dirname(agent.folder)).verdict).toBe('deleted');
    expect(existsSync(agent.folder)).toBe(false);
    expect(readFileSync(transcript, 'utf8')).toBe('{"type":"assistant"}\n');
    expect(inventory(w.home)).toEqual(home);
  });

  it('judges each session of a project on its own while one is young, and the project folder goes with the last', async () => {
    const w = claudeWorld();
    const old = w.session('/work/busy');
    const young = w.session('/work/busy', randomUUID(), new Date());

    const first = await w.pass();
    expect(itemAt(first.report, old.folder)).toMatchObject({ verdict: 'deleted', reason: 'session-ended' });
    expect(itemAt(first.report, young.folder)).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
    expect(existsSync(young.folder)).toBe(true);

    backdate(path.dirname(young.folder), daysAgo(2));
    const second = await w.pass();
    expect(itemAt(second.report, path.dirname(young.folder))).toMatchObject({
      verdict: 'deleted',
      reason: 'session-ended',
    });
    expect(existsSync(path.dirname(young.folder))).toBe(false);
  });

  it('deletes an empty project folder, and the tasks of older versions without a session level', async () => {
    const w = claudeWorld();
    const empty = path.join(w.root, '-work-empty');
    mkdirSync(empty);
    const legacy = put(path.join(w.root, '-work-legacy', 'tasks', 'b12345678.output'), 'done\n');
    const liveLegacy = put(path.join(w.root, '-work-running', 'tasks', 'b12345679.output'), 'done\n');
    w.record({ pid: process.pid, sessionId: randomUUID(), cwd: '/work/running' });
    // Not Claude Code's task layout: never touched.
    const probe = put(path.join(w.root, 'fswatch-probe-Ab12Cd', 'probe'), '');
    for (const each of [
      empty,
      path.dirname(path.dirname(legacy)),
      path.dirname(path.dirname(liveLegacy)),
      path.dirname(probe),
    ])
      backdate(each, daysAgo(3));

    const { report } = await w.pass();

    expect(itemAt(report, empty)).toMatchObject({ verdict: 'deleted', reason: 'project-folder-empty' });
    expect(itemAt(report, path.dirname(path.dirname(legacy)))).toMatchObject({
      verdict: 'deleted',
      reason: 'session-ended',
    });
    expect(itemAt(report, path.dirname(path.dirname(legacy))).detail).toContain(
      'the tasks of an older Claude Code has ended',
    );
    expect(itemAt(report, path.dirname(liveLegacy))).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(report.items.some((item) => item.path?.includes('fswatch-probe'))).toBe(false);
    expect(existsSync(probe)).toBe(true);
  });

  it('fails closed on a registry record it cannot read: every session of the uid refused, the root not ok', async () => {
    const w = claudeWorld();
    const s = w.session('/work/shop');
    writeFileSync(path.join(w.config, 'sessions', '4242.json'), '{"pid": 4242, "sessionId": ');
    const before = w.snapshot();

    const { report, exitCode } = await w.pass();

    expect(exitCode).toBe(1);
    expect(itemAt(report, s.folder)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(report, s.folder).detail).toContain(`${path.join(w.config, 'sessions', '4242.json')} cannot be read`);
    expect(report.providers).toContainEqual(expect.objectContaining({ root: w.root, ok: false }));
    expect(w.changes(before)).toEqual({ removed: [], changed: [], added: [] });
  });

  it('keeps an item written after the plan (rule 21), and gives the same plan report-only', async () => {
    const w = claudeWorld();
    const s = w.session('/work/late');
    const other = w.session('/work/other');

    const dry = await w.pass({ reportOnly: true });
    let planned: readonly ReportItem[] = [];
    const real = await w.pass({
      onPlanned: (items) => {
        planned = items;
        appendFileSync(s.output, 'one more line\n');
      },
    });

    expect(planned).toEqual(dry.report.items);
    expect(
      dry.report.items
        .filter((item) => item.verdict === 'would-delete')
        .map((item) => item.path)
        .sort(),
    ).toEqual([path.dirname(s.folder), path.dirname(other.folder)].sort());
    expect(itemAt(real.report, path.dirname(s.folder))).toMatchObject({
      verdict: 'refused',
      reason: 'changed-during-inspection',
    });
    expect(readFileSync(s.output, 'utf8')).toContain('one more line');
    expect(itemAt(real.report, path.dirname(other.folder)).verdict).toBe('deleted');
  });

  it('judges again just before the delete: a session started, or a shell carrying the id, after the plan stops it', async () => {
    const w = claudeWorld();
    const resumed = w.session('/work/resumed');
    const carried = w.session('/work/carried');
    const untouched = w.session('/work/untouched');
    const before = w.snapshot();
    let carrier = 0;

    const { report } = await w.pass({
      // Neither touches the folders, so only the provider's own re-check can see them.
      onPlanned: async () => {
        w.record({ pid: process.pid, sessionId: randomUUID(), cwd: '/work/resumed' });
        carrier = (await living('sleep', ['600'], { env: { [SESSION]: carried.sid, CLAUDE_PID: String(process.pid) } }))
          .pid;
      },
    });

    expect(itemAt(report, path.dirname(resumed.folder))).toMatchObject({ verdict: 'refused', reason: 'session-live' });
    expect(itemAt(report, path.dirname(resumed.folder)).detail).toMatch(
      /^judged again just before the delete: Claude Code is running in its project/,
    );
    expect(itemAt(report, path.dirname(carried.folder))).toMatchObject({
      verdict: 'refused',
      reason: 'session-process-live',
    });
    expect(itemAt(report, path.dirname(carried.folder)).detail).toContain(`process ${carrier} (sleep 600`);
    expect(itemAt(report, path.dirname(untouched.folder)).verdict).toBe('deleted');
    const slugOfUntouched = path.relative(w.dir, path.dirname(untouched.folder));
    expect(w.changes(before).removed.filter((key) => !key.startsWith(slugOfUntouched))).toEqual([]);
  });

  it('finishes a quarantine an interrupted pass left in a project folder', async () => {
    const w = claudeWorld();
    const left = put(
      path.join(w.root, '-work-shop', `.${randomUUID()}.cleanup-${randomUUID()}`, 'tasks', 'b1.output'),
      'x',
    );
    backdate(path.join(w.root, '-work-shop'), daysAgo(3));

    const { report } = await w.pass();

    expect(itemAt(report, path.dirname(path.dirname(left)))).toMatchObject({
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expect(existsSync(path.join(w.root, '-work-shop'))).toBe(true);
  });

  it('matches the slug of a long working directory as Claude Code cuts and hashes it', async () => {
    const w = claudeWorld();
    const cwd = `/work/${'deep/'.repeat(45)}project`;
    // Claude Code: the first 200 characters of the slug, then `-` and base36 of |31-hash| of the path.
    let hash = 0;
    for (const unit of cwd) hash = (Math.imul(hash, 31) + unit.charCodeAt(0)) | 0;
    const slug = `${slugOf(cwd).slice(0, 200)}-${Math.abs(hash).toString(36)}`;
    const folder = path.join(w.root, slug, randomUUID());
    put(path.join(folder, 'tasks', 'b1.output'), 'x');
    backdate(path.join(w.root, slug), daysAgo(3));
    w.record({ pid: process.pid, sessionId: randomUUID(), cwd });

    const { report } = await w.pass();

    expect(itemAt(report, folder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
  });
});
