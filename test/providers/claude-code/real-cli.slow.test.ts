import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastPassRegistry } from '../../../src/outputs/metrics/last-pass.js';
import { outcomeOfReport } from '../../../src/outputs/metrics/outcome.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';
import {
  backgroundTaskScript,
  CLAUDE_CODE,
  claudeIn,
  endOf,
  LARGE_OUTPUT_PROMPT,
  largeOutputScript,
  startClaude,
  startClaudeWithBackgroundTask,
  taskOutputs,
  WAITING_COMMAND,
} from '../../support/real-clis/claude-code.js';
import { type FakeModelServer, startFakeModelServer } from '../../support/real-clis/fake-model-server.mjs';
import { gitWith, layoutOf, makeProject, modeOf } from '../../support/real-clis/layout.js';
import { type CliInstall, installNpmCli } from '../../support/real-clis/npm-cli.js';
import { cmdlineOf, killHard, stateOf, treeOf, waitUntil } from '../../support/real-clis/run.js';
import { cliSandbox, startOf } from '../../support/real-clis/sandbox.js';

let install: CliInstall;
let server: FakeModelServer;

beforeAll(async () => {
  install = await installNpmCli(CLAUDE_CODE);
  if (install.bin)
    server = await startFakeModelServer({ reply: (turn) => largeOutputScript(turn) ?? backgroundTaskScript(turn) });
}, 320_000);

afterAll(async () => {
  await server?.close();
});

/**
 * Each run of Claude Code is a user's of its own: a pass of another test over a root-owned home
 * must not take it, or its shells, for root's running Claude Code.
 */
const claudeUser = (): RealUser => addUsers(1)[0] as RealUser;
const slugOf = (dir: string) => dir.replace(/[^A-Za-z0-9]/g, '-');
const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const ppidOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};
const pidDomain = () =>
  `linux:${readFileSync('/etc/machine-id', 'utf8').trim()}:pid:[${/\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1]}]`;
// A slug that shows the rule: every character that is not a letter or digit becomes `-`.
const PROJECT = 'My Proj.v2_x';

describe(`the real Claude Code ${CLAUDE_CODE.version}`, () => {
  it('writes a background task output under $TMPDIR/claude-<uid>, whose shell outlives a SIGKILL of Claude Code, still writing: refused in-use and held until the shell ends, then reclaimed, the rest kept', async (ctx) => {
    if (!install.bin) {
      console.warn(`skipping the real Claude Code test: ${install.why}`);
      ctx.skip(install.why);
    }
    const sandbox = cliSandbox(tempDir('aj-claude-cli-'));
    const user = claudeUser();
    const cc = claudeIn(install.bin as string, sandbox, server.port, { user });
    const cwd = makeProject(sandbox.env, path.join(sandbox.root, 'work', PROJECT));
    const root = path.join(sandbox.tmp, `claude-${user.uid}`);

    const running = await startClaudeWithBackgroundTask(
      cc,
      cwd,
      'for i in $(seq 1 3000); do echo line $i; sleep 0.1; done',
      root,
    );
    expect(server.requests.every((r) => r.method === 'POST' && r.url === '/v1/messages?beta=true')).toBe(true);

    // The live-session registry, written at start.
    const registry = path.join(cc.config, 'sessions', `${running.pid}.json`);
    const record = JSON.parse(readFileSync(registry, 'utf8'));
    expect(Object.keys(record).sort()).toEqual(
      [
        'asksForConvertedSkills',
        'cwd',
        'entrypoint',
        'kind',
        'messagingSocketPath',
        'name',
        'nameSince',
        'nameSource',
        'peerFeatures',
        'peerProtocol',
        'pid',
        'pidDomain',
        'procStart',
        'sessionId',
        'startedAt',
        'status',
        'statusUpdatedAt',
        'updatedAt',
        'version',
      ].sort(),
    );
    expect(record).toMatchObject({
      pid: running.pid,
      cwd,
      procStart: startOf(running.pid),
      pidDomain: pidDomain(),
      kind: 'interactive',
      entrypoint: 'sdk-cli',
      version: CLAUDE_CODE.version,
      messagingSocketPath: path.join(sandbox.tmp, 'cc-socks', `${running.pid}.sock`),
    });
    const sessionsDir = readdirSync(path.join(cc.config, 'sessions')).sort();
    expect(sessionsDir).toHaveLength(2);
    expect(sessionsDir[0]).toMatch(new RegExp(`^${running.pid}\\.[0-9a-f]{64}\\.key$`));
    expect(sessionsDir[1]).toBe(`${running.pid}.json`);
    const key = path.join(cc.config, 'sessions', sessionsDir[0] as string);
    expect(modeOf(key)).toBe('600');
    expect(JSON.parse(readFileSync(key, 'utf8'))).toEqual({
      peerToken: expect.stringMatching(/^[0-9a-f]{32}$/),
      procStart: record.procStart,
      pidDomain: record.pidDomain,
    });

    // The task output layout.
    const sid = record.sessionId as string;
    expect(sid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Beside the slugs, a probe of the file watcher, `fswatch-probe-XXXXXX/probe`, while it probes:
    // it comes and goes, so it is matched only when it is there.
    const layout = layoutOf(root, 4);
    const probe = layout.filter((name) => name.startsWith('fswatch-probe-'));
    for (const entry of probe) expect(entry).toMatch(/^fswatch-probe-[A-Za-z0-9]{6}\/(probe)?$/);
    expect(layout.filter((name) => !name.startsWith('fswatch-probe-'))).toEqual([
      `${slugOf(cwd)}/`,
      `${slugOf(cwd)}/${sid}/`,
      `${slugOf(cwd)}/${sid}/started/`,
      `${slugOf(cwd)}/${sid}/tasks/`,
      `${slugOf(cwd)}/${sid}/tasks/${path.basename(running.output)}`,
    ]);
    expect(path.basename(running.output)).toMatch(/^b[0-9a-z]{8}\.output$/);
    expect(modeOf(root)).toBe('700');
    expect(modeOf(path.join(root, slugOf(cwd)))).toBe('755');
    expect(modeOf(path.join(root, slugOf(cwd), sid))).toBe('755');
    expect(modeOf(path.join(root, slugOf(cwd), sid, 'started'))).toBe('700');
    expect(modeOf(path.join(root, slugOf(cwd), sid, 'tasks'))).toBe('755');
    expect(modeOf(running.output)).toBe('644');

    // SIGKILL: the registry stays, and the shell goes on writing into the output on its fds 1 and 2.
    const shell = running.shells.find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/bin/bash\0-c\0'),
    );
    expect(shell).toBeDefined();
    // Claude Code appends the transcript as the turn goes; on a busy machine a kill may come first.
    const transcript = path.join(cc.config, 'projects', slugOf(cwd), `${sid}.jsonl`);
    await waitUntil('the transcript to be written', () => existsSync(transcript), { timeoutMs: 30_000 });
    await killHard(running.child);
    expect(existsSync(registry)).toBe(true);
    expect(startOf(shell as number)).not.toBeNull();
    expect(ppidOf(shell as number)).not.toBe(running.pid);
    expect(readlinkSync(`/proc/${shell}/fd/1`)).toBe(running.output);
    expect(readlinkSync(`/proc/${shell}/fd/2`)).toBe(running.output);
    expect(readlinkSync(`/proc/${shell}/cwd`)).toBe(cwd);
    expect(environOf(shell as number)).toEqual(
      expect.arrayContaining([
        `CLAUDE_CODE_SESSION_ID=${sid}`,
        `CLAUDE_PID=${running.pid}`,
        'CLAUDECODE=1',
        `CLAUDE_CODE_CHILD_NOTES_DIR=${path.join(root, slugOf(cwd), sid, 'started')}`,
      ]),
    );
    const size = statSync(running.output).size;
    await waitUntil('the orphaned task to write on', () => statSync(running.output).size > size, { timeoutMs: 10_000 });
    expect(readFileSync(running.output, 'utf8')).not.toMatch(/\[(killed|exited with code \d+)\]/);

    // Another session, live, in another project: its Claude Code waits for its own background task.
    const otherCwd = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'live-app'));
    const live = await startClaudeWithBackgroundTask(cc, otherCwd, 'echo started; sleep 300', root);
    const liveRecord = JSON.parse(readFileSync(path.join(cc.config, 'sessions', `${live.pid}.json`), 'utf8'));
    const liveFolder = path.join(root, slugOf(otherCwd), liveRecord.sessionId);
    const killedFolder = path.join(root, slugOf(cwd), sid);
    const transcripts = path.join(cc.config, 'projects', slugOf(cwd));
    expect(existsSync(path.join(transcripts, `${sid}.jsonl`))).toBe(true);
    const keptTranscripts = inventory(transcripts);
    const keptRecord = readFileSync(registry, 'utf8');
    const keptLive = inventory(liveFolder);
    // As the operator runs it: the current user's own home, whose TMPDIR Claude Code used.
    const reconcile = () =>
      pass({
        dir: tempDir('aj-claude-pass-'),
        only: ['claude-code'],
        env: { HOME: sandbox.home, TMPDIR: sandbox.tmp },
        config: { homes: [sandbox.home], minAge: '0s' },
      });

    // 1. The shell still writes: refused in-use, naming it and its dead Claude Code, its bytes held.
    const first = await reconcile();
    const held = itemAt(first.report, killedFolder);
    expect(held).toMatchObject({ verdict: 'refused', reason: 'in-use', kind: 'task-output' });
    expect(held.detail).toContain(`${shell} (/bin/bash -c `);
    expect(held.detail).toContain(
      `carries CLAUDE_CODE_SESSION_ID=${sid}, but its Claude Code (CLAUDE_PID=${running.pid}) is gone`,
    );
    expect(held.detail).toContain(`stopping process ${shell} frees the space`);
    expect(held.bytes).toBeGreaterThan(0);
    console.log(JSON.stringify(first.report.items, null, 1));
    const heldBytes = await lastPassRegistry(outcomeOfReport(first.report, first.exitCode, ['claude-code']), null)
      .getSingleMetric('agent_janitor_held_bytes')
      ?.get();
    // The live session's folder is held too: its Claude Code, its shell and the shell's sleep have files open in it.
    const liveItem = itemAt(first.report, liveFolder);
    expect(liveItem).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(liveItem.detail).toContain('sleep 300');
    expect(heldBytes?.values).toContainEqual({
      labels: { provider: 'claude-code', kind: 'task-output' },
      value: held.bytes + liveItem.bytes,
    });
    expect(existsSync(running.output)).toBe(true);

    // 2. The shell killed too: the dead session goes (its project folder with it); the rest stays.
    // The shell and whatever it started meanwhile (a `sleep 0.1` forked between a look and a kill).
    const carriers = () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name) && stateOf(Number(name)) !== 'Z')
        .filter((name) => {
          try {
            return environOf(Number(name)).includes(`CLAUDE_CODE_SESSION_ID=${sid}`);
          } catch {
            return false;
          }
        })
        .map(Number);
    await waitUntil('the orphaned shell and its children to end', () => {
      for (const pid of carriers())
        for (const each of treeOf(pid)) {
          try {
            process.kill(each, 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
      return carriers().length === 0;
    });
    const second = await reconcile();
    expect(second.exitCode).toBe(0);
    expect(itemAt(second.report, path.dirname(killedFolder))).toMatchObject({
      verdict: 'deleted',
      reason: 'session-ended',
    });
    expect(existsSync(path.dirname(killedFolder))).toBe(false);
    expect(itemAt(second.report, liveFolder)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(inventory(liveFolder)).toEqual(keptLive);
    expect(inventory(transcripts)).toEqual(keptTranscripts);
    expect(readFileSync(registry, 'utf8')).toBe(keptRecord);
    const state = second.report.items.find((item) => item.reason === 'claude-state-reported');
    expect(state?.detail).toContain(
      `1 stale registry record of sessions that did not end cleanly: ${running.pid}.json (pid ${running.pid} is gone)`,
    );
    expect(state?.detail).toMatch(/transcripts [0-9.]+ (B|KiB|MiB) \(/);
    await killHard(live.child);
  }, 300_000);

  it('honours CLAUDE_CODE_TMPDIR over TMPDIR, and on a clean end removes its registry and keeps the task output', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-claude-cli-'));
    const own = path.join(sandbox.root, 'claude-tmp');
    sandbox.env.CLAUDE_CODE_TMPDIR = own;
    const user = claudeUser();
    const cc = claudeIn(install.bin as string, sandbox, server.port, { user });
    const cwd = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'app'));
    const root = path.join(own, `claude-${user.uid}`);

    const running = await startClaudeWithBackgroundTask(cc, cwd, 'echo finished', root);
    const exit = await new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
    expect(exit).toBe(0);
    expect(existsSync(path.join(sandbox.tmp, `claude-${user.uid}`))).toBe(false);
    expect(taskOutputs(root)).toEqual([running.output]);
    expect(readFileSync(running.output, 'utf8')).toBe('finished\n\n[exited with code 0]\n');
    expect(layoutOf(path.join(cc.config, 'sessions'))).toEqual([]);

    // The session ended cleanly, and the pass finds its output where CLAUDE_CODE_TMPDIR put it.
    const { report } = await pass({
      dir: tempDir('aj-claude-pass-'),
      only: ['claude-code'],
      env: { HOME: sandbox.home, TMPDIR: sandbox.tmp, CLAUDE_CODE_TMPDIR: own },
      config: { homes: [sandbox.home], minAge: '0s' },
    });
    expect(itemAt(report, path.join(root, slugOf(cwd)))).toMatchObject({ verdict: 'deleted', reason: 'session-ended' });
    expect(taskOutputs(root)).toEqual([]);
  }, 120_000);

  it('keeps its registry in CLAUDE_CONFIG_DIR=~/.claude-work: a pass not told of that profile keeps the project of its live session, then reclaims it once the session has ended', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-claude-cli-'));
    const work = path.join(sandbox.home, '.claude-work');
    const user = claudeUser();
    const cc = claudeIn(install.bin as string, sandbox, server.port, { user, configDir: work });
    const cwd = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'shop'));
    const root = path.join(sandbox.tmp, `claude-${user.uid}`);
    const project = path.join(root, slugOf(cwd));

    // An earlier session of the project, ended cleanly: its record is gone, its output stays.
    const earlier = await startClaudeWithBackgroundTask(cc, cwd, 'echo finished', root);
    expect(existsSync(path.join(work, 'sessions', `${earlier.pid}.json`))).toBe(true);
    expect(await endOf(earlier)).toBe(0);
    const earlierFolder = path.dirname(path.dirname(earlier.output));
    expect(readdirSync(path.join(work, 'sessions'))).toEqual([]);

    // The live session, under the same profile: its record is in ~/.claude-work, none in ~/.claude.
    const live = await startClaudeWithBackgroundTask(cc, cwd, 'echo started; sleep 25', root);
    const registry = path.join(work, 'sessions', `${live.pid}.json`);
    const record = JSON.parse(readFileSync(registry, 'utf8'));
    expect(record).toMatchObject({ pid: live.pid, cwd, procStart: startOf(live.pid) });
    expect(existsSync(path.join(sandbox.home, '.claude', 'sessions'))).toBe(false);
    expect(environOf(live.pid)).toContain(`CLAUDE_CONFIG_DIR=${work}`);
    const liveFolder = path.join(project, record.sessionId);
    const kept = inventory(project);
    // As the operator runs it: the user's own home, with no CLAUDE_CONFIG_DIR of its own.
    const reconcile = () =>
      pass({
        dir: tempDir('aj-claude-pass-'),
        only: ['claude-code'],
        env: { HOME: sandbox.home, TMPDIR: sandbox.tmp, CLAUDE_CONFIG_DIR: '' },
        config: { homes: [sandbox.home], minAge: '0s' },
      });

    const first = await reconcile();
    expect(live.child.exitCode).toBeNull();
    expect(itemAt(first.report, earlierFolder)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    expect(itemAt(first.report, earlierFolder).detail).toContain(
      `${registry} (pid ${live.pid}, session ${record.sessionId}`,
    );
    expect(itemAt(first.report, liveFolder).verdict).not.toMatch(/delete/);
    expect(inventory(project)).toEqual(kept);

    // The session ends (its task done, Claude Code exits and removes its record): the project goes whole.
    expect(await endOf(live)).toBe(0);
    expect(existsSync(registry)).toBe(false);
    const second = await reconcile();
    expect(itemAt(second.report, project)).toMatchObject({ verdict: 'deleted', reason: 'session-ended' });
    expect(existsSync(project)).toBe(false);
  }, 180_000);

  it("leaves its own retention undone where no later Claude Code sweeps: a killed session's session-env, debug log and tool results (its transcript gone) go once past cleanupPeriodDays; its shell snapshot stays while another session of the folder runs, then goes", async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-claude-cli-'));
    const user = claudeUser();
    const cc = claudeIn(install.bin as string, sandbox, server.port, { user });
    const cwd = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'shop'));
    const config = cc.config;
    const waiting = (pid: number) => () => treeOf(pid).find((each) => cmdlineOf(each) === WAITING_COMMAND);

    // A session that prints a lot (kept as a tool result), then waits in a Bash call; `--debug` writes its debug log.
    const killed = startClaude(cc, cwd, ['-p', LARGE_OUTPUT_PROMPT, '--allowedTools', 'Bash', '--debug']);
    await waitUntil('the first session to wait in its second Bash call', waiting(killed.pid as number), {
      timeoutMs: 60_000,
      context: killed.output,
    });
    const sid = JSON.parse(readFileSync(path.join(config, 'sessions', `${killed.pid}.json`), 'utf8'))
      .sessionId as string;
    const slug = path.join('projects', slugOf(cwd));
    const layout = layoutOf(config, 5);
    const results = layout.filter((name) => name.startsWith(`${slug}/${sid}/tool-results/`) && !name.endsWith('/'));
    expect(results).toEqual([expect.stringMatching(new RegExp(`^${slug}/${sid}/tool-results/[0-9a-z]+\\.txt$`))]);
    const snapshots = layout.filter((name) => name.startsWith('shell-snapshots/') && name !== 'shell-snapshots/');
    expect(snapshots).toEqual([expect.stringMatching(/^shell-snapshots\/snapshot-bash-\d+-[a-z0-9]{6}\.sh$/)]);
    expect(layout).toEqual(
      expect.arrayContaining([
        `session-env/${sid}/`,
        `debug/${sid}.txt`,
        'debug/latest@',
        `${slug}/${sid}.jsonl`,
        `sessions/${killed.pid}.json`,
      ]),
    );
    expect(readlinkSync(path.join(config, 'debug', 'latest'))).toBe(path.join(config, 'debug', `${sid}.txt`));
    const snapshot = path.join(config, snapshots[0] as string);
    // Killed: its record and everything above stay; its shell still runs, carrying the session's id.
    const shells = treeOf(killed.pid as number).slice(1);
    await killHard(killed);
    const orphan = shells.find((pid) => environOf(pid).includes(`CLAUDE_CODE_SESSION_ID=${sid}`));
    expect(orphan).toBeDefined();

    // Where the fixture stands in for what the CLI did not do here: Claude Code's own sweep took
    // the transcript and left its tool results (as reported against 2.1.272); 2.1.332 writes no
    // todos, so one is laid out as earlier versions wrote it; and forty days pass.
    rmSync(path.join(config, slug, `${sid}.jsonl`));
    put(path.join(config, 'todos', `${sid}-agent-${sid}.json`), '[]');
    backdate(config, daysAgo(40));
    giveTo(config, user);

    // A live session of the same config folder, in another project: its start does not sweep either.
    const otherCwd = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'live-app'));
    const live = startClaude(cc, otherCwd, ['-p', LARGE_OUTPUT_PROMPT, '--allowedTools', 'Bash']);
    await waitUntil('the live session to wait in its second Bash call', waiting(live.pid as number), {
      timeoutMs: 60_000,
      context: live.output,
    });
    for (const entry of [`session-env/${sid}`, `debug/${sid}.txt`, snapshots[0] as string])
      expect(existsSync(path.join(config, entry)), entry).toBe(true);

    const reconcile = () =>
      pass({
        dir: tempDir('aj-claude-pass-'),
        only: ['claude-code'],
        env: { HOME: sandbox.home, TMPDIR: sandbox.tmp },
        config: {
          homes: [sandbox.home],
          minAge: '1h',
          providers: { 'claude-code': { managedSettingsDir: path.join(sandbox.root, 'etc', 'claude-code') } },
        },
      });
    const gone = [
      path.join(config, 'session-env', sid),
      path.join(config, 'debug', `${sid}.txt`),
      path.join(config, 'todos', `${sid}-agent-${sid}.json`),
      path.join(config, slug, sid, 'tool-results'),
    ];

    // 1. The orphaned shell still carries the session: its entries stay.
    const first = await reconcile();
    for (const at of gone.slice(0, 3))
      expect(itemAt(first.report, at), at).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(first.report, snapshot)).toMatchObject({ verdict: 'kept', reason: 'session-live' });

    // 2. The shell ended: the session's entries go; the snapshot stays while the live session runs.
    for (const pid of treeOf(orphan as number)) process.kill(pid, 'SIGKILL');
    await waitUntil('the orphaned shell to end', () => stateOf(orphan as number) === null);
    const before = inventory(config);
    const second = await reconcile();
    for (const at of gone) {
      expect(itemAt(second.report, at), at).toMatchObject({ verdict: 'deleted', reason: 'retention-expired' });
      expect(itemAt(second.report, at).detail).toContain("(30 days: Claude Code's default");
    }
    expect(itemAt(second.report, snapshot)).toMatchObject({ verdict: 'kept', reason: 'session-live' });
    const rel = (at: string) => path.relative(config, at);
    const changes = diffInventories(before, inventory(config));
    expect(changes.removed).toEqual(
      [...before.keys()].filter((key) => gone.some((at) => key === rel(at) || key.startsWith(`${rel(at)}/`))).sort(),
    );
    // `latest` is never the rule's: it stays, a link to the log that went.
    expect(lstatSync(path.join(config, 'debug', 'latest')).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(config, slug, sid))).toBe(true);

    // 3. The live session ended too, and its shell (which carries CLAUDECODE=1, so counts as a running
    // Claude Code): the old snapshot goes, its own (not past the period) stays.
    const liveShells = treeOf(live.pid as number).slice(1);
    await killHard(live);
    for (const pid of liveShells) process.kill(pid, 'SIGKILL');
    await waitUntil("the live session's shells to end", () => liveShells.every((pid) => stateOf(pid) === null));
    const third = await reconcile();
    expect(itemAt(third.report, snapshot)).toMatchObject({ verdict: 'deleted', reason: 'retention-expired' });
    expect(readdirSync(path.join(config, 'shell-snapshots'))).toHaveLength(1);
  }, 240_000);

  it('locks a --worktree with its own text and leaves the lock when it ends: unlocked and removed once idle, its branch kept; one a running Claude Code works in stays', async (ctx) => {
    if (!install.bin) ctx.skip(install.why);
    const sandbox = cliSandbox(tempDir('aj-claude-cli-'));
    const user = claudeUser();
    const cc = claudeIn(install.bin as string, sandbox, server.port, { user });
    const repo = makeProject(sandbox.env, path.join(sandbox.root, 'work', 'shop'));
    const tree = path.join(repo, '.claude', 'worktrees', 'feat');
    const locked = path.join(repo, '.git', 'worktrees', 'feat', 'locked');

    // A session in a worktree of its own, ended cleanly: the worktree and its lock stay behind.
    const ended = startClaude(cc, repo, ['--worktree', 'feat', '-p', 'hello']);
    const exit = await new Promise<number | null>((resolve) => ended.once('exit', (code) => resolve(code)));
    expect(exit, ended.output()).toBe(0);
    expect(readFileSync(path.join(tree, '.git'), 'utf8')).toBe(`gitdir: ${path.dirname(locked)}\n`);
    expect(readFileSync(locked, 'utf8')).toMatch(
      new RegExp(`^claude session feat \\(pid ${ended.pid} start \\d+\\)\n$`),
    );
    expect(stateOf(ended.pid as number)).toBeNull();
    expect(Object.keys(JSON.parse(readFileSync(path.join(sandbox.home, '.claude.json'), 'utf8')).projects)).toEqual([
      repo,
    ]);
    // Another, still running in its worktree (waiting in a Bash call there).
    const running = startClaude(cc, repo, ['--worktree', 'busy', '-p', LARGE_OUTPUT_PROMPT, '--allowedTools', 'Bash']);
    await waitUntil(
      'the running session to wait in its second Bash call',
      () => treeOf(running.pid as number).find((each) => cmdlineOf(each) === WAITING_COMMAND),
      { timeoutMs: 60_000, context: running.output },
    );
    const busy = path.join(repo, '.claude', 'worktrees', 'busy');
    const busyLock = readFileSync(path.join(repo, '.git', 'worktrees', 'busy', 'locked'));
    expect(busyLock.toString()).toBe(
      `claude session busy (pid ${running.pid} start ${startOf(running.pid as number)})\n`,
    );
    // The fixture stands in for the time: four days pass (the set's idleAfter is 3d).
    for (const each of [tree, path.dirname(locked), busy, path.join(repo, '.git', 'worktrees', 'busy')])
      backdate(each, daysAgo(4));
    const before = inventory(repo);

    const { report } = await pass({
      dir: tempDir('aj-claude-pass-'),
      only: ['worktrees'],
      env: { HOME: sandbox.home },
      config: { homes: [sandbox.home], minAge: '1h' },
    });

    expect(itemAt(report, tree)).toMatchObject({ verdict: 'deleted', reason: 'idle-clean' });
    expect(itemAt(report, tree).detail).toContain(
      `its git lock is stale (Claude Code's own lock "claude session feat (pid ${ended.pid} start`,
    );
    expect(itemAt(report, busy)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(readFileSync(path.join(repo, '.git', 'worktrees', 'busy', 'locked'))).toEqual(busyLock);
    const changes = diffInventories(before, inventory(repo));
    const gone = [path.relative(repo, tree), path.relative(repo, path.dirname(locked))];
    expect(changes.removed).toEqual(
      [...before.keys()].filter((key) => gone.some((at) => key === at || key.startsWith(`${at}/`))).sort(),
    );
    expect(changes.added).toEqual([]);
    expect(gitWith(sandbox.env, ['-c', 'safe.directory=*', 'branch', '--list', 'worktree-feat'], repo).trim()).toBe(
      'worktree-feat',
    );
    await killHard(running);
  }, 180_000);
});
