import { spawn, type ChildProcess } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectOnlyRemoved, expectUnchanged, verdictsOf } from '../../engines/vscode-storage/expect.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { containerRoot, freeze, processBelow, startContainer } from '../../helpers/container-root.js';
import { itemAt } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { geminiScene, type GeminiScene } from './fixtures.js';
import { projectTmp, runRetention, session } from './sessions.js';

const HOUR = 3_600_000;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * HOUR);

/** A project folder of the user's, and its `tmp/<slug>/` with `.project_root`. */
function projectOf(s: GeminiScene, slug: string): { root: string; tmp: string } {
  const root = path.join(s.projects, slug);
  mkdirSync(root, { recursive: true });
  return { root, tmp: projectTmp(s, slug, root) };
}

/** The user's `~/.gemini/settings.json`. */
function userSettings(s: GeminiScene, settings: unknown): void {
  put(path.join(s.gemini, 'settings.json'), typeof settings === 'string' ? settings : JSON.stringify(settings));
}

const retention = (value: Record<string, unknown>) => ({ general: { sessionRetention: value } });

/**
 * The folders the setup made just now (`tmp/`, `chats/`, `logs/`) dated three days back: a
 * session's age is what its own files and folders say, which the setup dated already.
 */
function settle(s: GeminiScene): void {
  const when = daysAgo(3);
  const recent = Date.now() - HOUR;
  const visit = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }))
      if (entry.isDirectory()) visit(path.join(at, entry.name));
    if (lstatSync(at).mtimeMs > recent) utimesSync(at, when, when);
  };
  visit(s.gemini);
}

/** Whether `pid` has `file` open. */
function opened(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

describe("gemini: Gemini CLI's own session retention, in every project", () => {
  it('with applyOwnerRetention, deletes the sessions it selects, each with everything that goes with it; keeps the rest', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const old = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    const recent = session(app.tmp, app.root, { at: daysAgo(2), companions: true });
    const empty = session(app.tmp, app.root, { at: daysAgo(3), empty: true });
    const emptyYoung = session(app.tmp, app.root, { at: hoursAgo(3), empty: true });
    const other = projectOf(s, 'blog');
    const otherOld = session(other.tmp, other.root, { at: daysAgo(31) });
    settle(s);
    const before = inventory(s.root);

    const { report, exitCode } = await runRetention(s);

    expect(exitCode).toBe(0);
    expect(verdictsOf(report)).toEqual(
      [
        ...Array(1 + 5 + 1 + 1).fill('owner-retention deleted gemini-session-expired'),
        'task-folder kept project-scratch',
        'task-folder kept project-scratch',
      ].sort(),
    );
    const chat = itemAt(report, old.chat);
    expect(chat.detail).toMatch(
      /^past Gemini CLI's own session retention \(maxAge 30d \(the defaults\)\): last updated .*, 40 days ago, older than maxAge, and older than minRetention 1d; Gemini CLI applies it only to the project it starts in, and none runs in this one \(.* with logs\/session-.*\.jsonl, tool-outputs\/session-.*, .*, chats\/.*, tool-outputs\/session-.*\)$/,
    );
    expect(itemAt(report, empty.chat).detail).toContain('its chat holds no session Gemini CLI can resume');
    for (const companion of old.companions)
      expect(itemAt(report, companion).detail).toMatch(new RegExp(`^goes with the session ${old.chat}`));
    // The project's scratch is reported without a path, so that it claims none of the sessions in it.
    const scratch = report.items.filter((item) => item.reason === 'project-scratch');
    expect(scratch.map((item) => item.path)).toEqual([null, null]);
    expect(scratch[0]?.detail).toMatch(new RegExp(`^${app.tmp} \\(`));
    expect(scratch[0]?.detail).toMatch(
      /selects 3 of its 4 sessions: 2 go \(.* with their logs, tool outputs and folders\), each an item of its own; 1 younger than minRetention stays? \(/,
    );
    expectOnlyRemoved(s.root, before, inventory(s.root), [old.chat, ...old.companions, empty.chat, otherOld.chat]);
    expect(recent.companions.length).toBe(5);
    expect(emptyYoung.chat).toBeTruthy();

    // A second pass finds nothing more.
    const settled = inventory(s.root);
    const again = await runRetention(s);
    expect(again.report.items.filter((item) => item.verdict === 'deleted')).toEqual([]);
    expectUnchanged(settled, inventory(s.root));
  });

  it("reads an older Gemini CLI's .json chat whole, and takes a session's .json and .jsonl together", async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const id = '9c1b2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';
    const start = daysAgo(45).toISOString();
    // As Gemini CLI before JSONL wrote it: one object; resuming it later starts `<name>.jsonl` beside it.
    const legacy = put(
      path.join(app.tmp, 'chats', `session-${start.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.json`),
      JSON.stringify({
        sessionId: id,
        projectHash: 'x',
        startTime: start,
        lastUpdated: start,
        messages: [{ id: '1', timestamp: start, type: 'user', content: 'write hello' }],
      }),
    );
    backdate(legacy, daysAgo(45));
    const resumed = session(app.tmp, app.root, { at: daysAgo(44), id });
    const alone = put(
      path.join(app.tmp, 'chats', 'session-2026-01-01T10-00-77777777.json'),
      JSON.stringify({
        sessionId: 'b7',
        lastUpdated: daysAgo(50).toISOString(),
        messages: [{ id: '1', type: 'user', content: 'hi' }],
      }),
    );
    backdate(alone, daysAgo(50));
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s);

    for (const chat of [legacy, resumed.chat, alone])
      expect(itemAt(report, chat)).toMatchObject({ verdict: 'deleted', reason: 'gemini-session-expired' });
    expect(itemAt(report, legacy).detail).toContain(`(${legacy} with chats/${path.basename(resumed.chat)})`);
    expectOnlyRemoved(s.root, before, inventory(s.root), [legacy, resumed.chat, alone]);
  });

  it('without applyOwnerRetention (the default), reports what the rule would remove, and changes nothing', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    session(app.tmp, app.root, { at: daysAgo(2) });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s, { apply: false });

    expect(verdictsOf(report)).toEqual(['task-folder kept project-scratch']);
    const scratch = itemAt(report, app.tmp);
    expect(scratch.detail).toMatch(
      /; Gemini CLI's own session retention \(maxAge 30d \(the defaults\)\) selects 1 of its 2 sessions: 1 would go \(\d+\.\d KiB with their logs, tool outputs and folders\): reported only, providers\.gemini\.applyOwnerRetention: true removes them in every project, as Gemini CLI does only in the one it starts in$/,
    );
    expectUnchanged(before, inventory(s.root));
  });

  it('a report-only pass plans the same deletions and changes nothing', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const old = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s, { reportOnly: true });

    for (const at of [old.chat, ...old.companions])
      expect(itemAt(report, at)).toMatchObject({ verdict: 'would-delete', reason: 'gemini-session-expired' });
    expect(report.totals.wouldReclaimBytes).toBeGreaterThan(60_000);
    expectUnchanged(before, inventory(s.root));
  });

  it("follows the user's settings: maxAge, maxCount and minRetention; never under minRetention", async () => {
    const s = geminiScene();
    userSettings(s, retention({ maxAge: '7d', maxCount: 2, minRetention: '1d' }));
    const app = projectOf(s, 'app');
    const tenDays = session(app.tmp, app.root, { at: daysAgo(10) });
    const fiveDays = session(app.tmp, app.root, { at: daysAgo(5) });
    const fourDays = session(app.tmp, app.root, { at: daysAgo(4) });
    const threeHours = session(app.tmp, app.root, { at: hoursAgo(3) });
    const twoHours = session(app.tmp, app.root, { at: hoursAgo(2) });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s);

    // Newest first: 2h, 3h are the two kept by count; 4d and 5d are past it; 10d is past maxAge too.
    expect(itemAt(report, tenDays.chat).detail).toContain('older than maxAge');
    expect(itemAt(report, fiveDays.chat).detail).toContain('past the 2 newest sessions of its project');
    expect(itemAt(report, fourDays.chat).verdict).toBe('deleted');
    expectOnlyRemoved(s.root, before, inventory(s.root), [tenDays.chat, fiveDays.chat, fourDays.chat]);
    expect([threeHours.chat, twoHours.chat].every((chat) => report.items.every((item) => item.path !== chat))).toBe(
      true,
    );

    // maxCount 1 selects the 3-hour-old session too: minRetention (1d) keeps it all the same.
    userSettings(s, retention({ maxCount: 1, maxAge: '' }));
    backdate(path.join(s.gemini, 'settings.json'), daysAgo(3));
    const kept = inventory(s.root);
    const again = await runRetention(s);
    expect(again.report.items.filter((item) => item.verdict === 'deleted')).toEqual([]);
    expect(again.report.items.find((item) => item.reason === 'project-scratch')?.detail).toContain(
      'selects 1 of its 2 sessions: 1 younger than minRetention stays (',
    );
    expectUnchanged(kept, inventory(s.root));
  });

  it('a project whose own settings turn retention off keeps its sessions; one that shortens it is not trusted to', async () => {
    const s = geminiScene();
    const off = projectOf(s, 'off');
    put(path.join(off.root, '.gemini', 'settings.json'), JSON.stringify(retention({ enabled: false })));
    const offOld = session(off.tmp, off.root, { at: daysAgo(40) });
    const short = projectOf(s, 'short');
    // Gemini CLI reads a project's settings only in a trusted folder: whether it is, is not known here.
    put(path.join(short.root, '.gemini', 'settings.json'), `// mine\n${JSON.stringify(retention({ maxAge: '2d' }))}`);
    const shortOld = session(short.tmp, short.root, { at: daysAgo(5) });
    const shortOlder = session(short.tmp, short.root, { at: daysAgo(35) });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s);

    expect(report.items.some((item) => item.path === offOld.chat || item.path === shortOld.chat)).toBe(false);
    expect(itemAt(report, shortOlder.chat).verdict).toBe('deleted');
    expectOnlyRemoved(s.root, before, inventory(s.root), [shortOlder.chat]);
  });

  it('system settings (GEMINI_CLI_SYSTEM_SETTINGS_PATH) that turn it off keep every session', async () => {
    const s = geminiScene();
    put(path.join(s.root, 'etc', 'settings.json'), JSON.stringify(retention({ enabled: false })));
    const app = projectOf(s, 'app');
    session(app.tmp, app.root, { at: daysAgo(40) });
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s);

    expect(report.items.find((item) => item.reason === 'project-scratch')?.detail).toContain(
      `Gemini CLI's own session retention does not apply here: sessionRetention is not enabled (${path.join(s.root, 'etc', 'settings.json')} over the defaults)`,
    );
    expectUnchanged(before, inventory(s.root));
  });

  it('a settings file that cannot be read, or a project root that is missing, refuses the sessions it selects', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const appOld = session(app.tmp, app.root, { at: daysAgo(40) });
    const gone = projectOf(s, 'gone');
    const goneOld = session(gone.tmp, gone.root, { at: daysAgo(40) });
    rmSync(gone.root, { recursive: true });
    const broken = projectOf(s, 'broken');
    put(path.join(broken.root, '.gemini', 'settings.json'), '{ "general": ');
    const brokenOld = session(broken.tmp, broken.root, { at: daysAgo(40) });
    settle(s);
    const before = inventory(s.root);

    const first = await runRetention(s);

    expect(itemAt(first.report, appOld.chat).verdict).toBe('deleted');
    expect(itemAt(first.report, goneOld.chat)).toMatchObject({ verdict: 'refused', reason: 'project-root-missing' });
    expect(itemAt(first.report, goneOld.chat).detail).toContain(`its project ${gone.root} is missing`);
    expect(itemAt(first.report, brokenOld.chat)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(itemAt(first.report, brokenOld.chat).detail).toContain(
      `${path.join(broken.root, '.gemini', 'settings.json')} cannot be read`,
    );
    expectOnlyRemoved(s.root, before, inventory(s.root), [appOld.chat]);

    // The user's own settings unreadable: nothing is deleted anywhere.
    const next = session(app.tmp, app.root, { at: daysAgo(40) });
    userSettings(s, '{ not json');
    backdate(path.join(s.gemini, 'settings.json'), daysAgo(3));
    settle(s);
    const again = await runRetention(s);
    expect(itemAt(again.report, next.chat)).toMatchObject({ verdict: 'refused', reason: 'source-unreadable' });
    expect(again.report.items.filter((item) => item.verdict === 'deleted')).toEqual([]);
  });

  it('never follows a link: a chat file that is one is not read; a session with one goes nowhere', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const elsewhere = tempDir('aj-gemini-elsewhere-');
    const outside = session(elsewhere, app.root, { at: daysAgo(40) });
    const linked = path.join(app.tmp, 'chats', path.basename(outside.chat));
    mkdirSync(path.dirname(linked), { recursive: true });
    symlinkSync(outside.chat, linked);
    const withLink = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    const outputs = withLink.companions[1] as string;
    const away = path.join(elsewhere, 'outputs');
    put(path.join(away, 'precious.txt'), 'not a tool output\n');
    rmSync(outputs, { recursive: true });
    symlinkSync(away, outputs);
    backdate(elsewhere, daysAgo(40));
    backdate(linked, daysAgo(40));
    backdate(outputs, daysAgo(40));
    settle(s);
    const before = inventory(s.root);
    const beforeAway = inventory(elsewhere);

    const { report } = await runRetention(s);

    expect(itemAt(report, linked)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(itemAt(report, withLink.chat)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(itemAt(report, withLink.chat).detail).toContain(`${outputs} is a link`);
    expectUnchanged(before, inventory(s.root));
    expectUnchanged(beforeAway, inventory(elsewhere));
  });

  it('a session part of which a process holds open stays whole', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const old = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    settle(s);
    const holder = living('tail', ['-f', old.companions[0] as string]);
    await waitFor(() => opened(holder.pid as number, old.companions[0] as string));
    const before = inventory(s.root);

    const { report } = await runRetention(s);

    expect(itemAt(report, old.chat)).toMatchObject({ verdict: 'refused', reason: 'in-use' });
    expect(itemAt(report, old.chat).detail).toContain(`process ${holder.pid} (tail -f`);
    expectUnchanged(before, inventory(s.root));
  });

  it("finishes the quarantines an interrupted pass left of a session's folders, whatever the option says", async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const uuid = '0f8e4c2a-9b1d-4e7f-8a3c-5d6e7f8a9b0c';
    const leftovers = [
      path.join(app.tmp, 'tool-outputs', `.session-abc.cleanup-${uuid}`),
      path.join(app.tmp, 'chats', `.abc.cleanup-${uuid}`),
      path.join(app.tmp, `.abc.cleanup-${uuid}`),
    ];
    for (const leftover of leftovers) put(path.join(leftover, 'x.txt'), 'x\n');
    for (const leftover of leftovers) backdate(leftover, daysAgo(3));
    settle(s);
    const before = inventory(s.root);

    const { report } = await runRetention(s, { apply: false });

    for (const leftover of leftovers)
      expect(itemAt(report, leftover)).toMatchObject({
        kind: 'quarantine',
        verdict: 'deleted',
        reason: 'quarantine-leftover',
      });
    expect(report.items.find((item) => item.reason === 'project-scratch')?.path).toBeNull();
    expectOnlyRemoved(s.root, before, inventory(s.root), leftovers);
  });

  it('the executor takes what goes with a session only once its chat file is gone', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const old = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    settle(s);
    const before = inventory(s.root);

    // Written after the plan: the last proof keeps the chat file, so everything of it stays.
    const { report } = await runRetention(s, { onPlanned: () => writeFileSync(old.chat, '\n', { flag: 'a' }) });

    expect(itemAt(report, old.chat).verdict).toBe('refused');
    expect(['too-recent', 'changed-during-inspection']).toContain(itemAt(report, old.chat).reason);
    for (const companion of old.companions)
      expect(itemAt(report, companion)).toMatchObject({ verdict: 'refused', reason: 'session-file-remains' });
    const after = inventory(s.root);
    expect([...before.keys()].filter((key) => !after.has(key))).toEqual([]);
  });
});

describe('gemini: a running Gemini CLI keeps the sessions of its project', () => {
  it('a gemini working in the project (in a folder of it, through a link), running or stopped, refuses its sessions', async () => {
    const s = geminiScene();
    const app = projectOf(s, 'app');
    const old = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
    const other = projectOf(s, 'other');
    const otherOld = session(other.tmp, other.root, { at: daysAgo(40) });
    mkdirSync(path.join(app.root, 'src'));
    const link = path.join(s.root, 'app-link');
    symlinkSync(app.root, link);
    settle(s);
    const before = inventory(s.root, { exclude: [other.tmp] });

    let first = true;
    for (const cwd of [path.join(app.root, 'src'), link]) {
      const gemini = await standInGemini(cwd);
      for (const stopped of [false, true]) {
        if (stopped) process.kill(gemini.pid as number, 'SIGSTOP');
        const { report } = await runRetention(s);
        const item = itemAt(report, old.chat);
        expect(item).toMatchObject({ verdict: 'refused', reason: 'gemini-running' });
        expect(item.detail).toContain(`Gemini CLI is running in its project: process ${gemini.pid} (`);
        expectUnchanged(before, inventory(s.root, { exclude: [other.tmp] }));
        // The other project has no gemini in it: its old session goes.
        if (first) expect(itemAt(report, otherOld.chat).verdict).toBe('deleted');
        first = false;
      }
      gemini.kill('SIGKILL');
    }
  });
});

describe.runIf(process.geteuid?.() === 0)(
  'gemini: a Gemini CLI in a container keeps its project (rules 25, 26)',
  () => {
    it('one whose /workspace is the project, frozen as docker pause does, refuses its sessions', async () => {
      const s = geminiScene();
      const app = projectOf(s, 'app');
      const old = session(app.tmp, app.root, { at: daysAgo(40), companions: true });
      settle(s);
      const bin = tempDir('aj-gemini-bin-');
      writeFileSync(path.join(bin, 'gemini'), 'setInterval(() => {}, 60_000);\n');
      const root = containerRoot({ folders: ['workspace', 'opt/gemini'] });
      const container = startContainer(
        root,
        { '/workspace': app.root, '/opt/gemini': bin },
        { PATH: '/usr/bin:/bin' },
        ['sh', '-c', `cd /workspace && exec ${process.execPath} /opt/gemini/gemini`],
      );
      const pid = await processBelow(container, (argv) => argv[1] === '/opt/gemini/gemini');
      const frozen = await freeze(pid);
      try {
        const before = inventory(s.root);
        const { report } = await runRetention(s);
        expect(itemAt(report, old.chat)).toMatchObject({ verdict: 'refused', reason: 'gemini-running' });
        expect(itemAt(report, old.chat).detail).toContain(`process ${pid} (`);
        expectUnchanged(before, inventory(s.root));
      } finally {
        await frozen.thaw();
      }
    });
  },
);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function living(command: string, args: string[], cwd = '/'): ChildProcess {
  const child = spawn(command, args, { cwd, stdio: 'ignore' });
  children.push(child);
  return child;
}

/** A stand-in Gemini CLI: Node running a script named `gemini`, as npm's `gemini` link runs the bundle. */
async function standInGemini(cwd: string): Promise<ChildProcess> {
  const bin = path.join(tempDir('aj-gemini-bin-'), 'gemini');
  writeFileSync(bin, 'setInterval(() => {}, 60_000);\n');
  const child = living(process.execPath, [bin], cwd);
  await waitFor(() => {
    try {
      return readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes(bin);
    } catch {
      return false;
    }
  });
  return child;
}
