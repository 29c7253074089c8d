import { mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOnlyRemoved, expectUnchanged, verdictsOf } from '../../engines/vscode-storage/expect.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { itemAt } from '../../helpers/pass.js';
import { waitFor } from '../../helpers/processes.js';
import { dateFolder, flatLog, gooseScene, goosedWriting, runGoose } from './fixtures.js';

describe("goose: log date folders past Goose's own 14-day rule go; flat logs and sessions are reported", () => {
  it('deletes the date folders older than 14 days plus minAge; keeps the recent ones, flat files and sessions', async () => {
    const s = gooseScene();
    const old = dateFolder(s, 'cli', daysAgo(20), ['', '-fix-tests']);
    const oldServer = dateFolder(s, 'server', daysAgo(30), ['-goosed']);
    const recent = dateFolder(s, 'cli', daysAgo(3));
    // Goose's own rule keeps it (13 days); so does this pass.
    const young = dateFolder(s, 'server', daysAgo(13), ['-goosed']);
    const flat = flatLog(s, 'server', daysAgo(60), '-goosed', 2000);
    const sessions = put(path.join(s.data, 'sessions', 'sessions.db'), 'SQLite format 3\0');
    backdate(path.join(s.data, 'sessions'), daysAgo(40));
    const before = inventory(s.root);

    const { report, exitCode } = await runGoose(s);

    expect(exitCode).toBe(0);
    expect(report.providers).toEqual([
      { provider: 'goose', root: s.state, ok: true },
      { provider: 'goose', root: s.data, ok: true },
    ]);
    expect(verdictsOf(report)).toEqual(
      [
        'owner-retention deleted goose-log-expired',
        'owner-retention deleted goose-log-expired',
        'owner-retention kept goose-log-retained',
        'owner-retention kept goose-log-retained',
        'owner-retention kept goose-log-reported',
        'task-folder kept goose-sessions',
      ].sort(),
    );
    expect(itemAt(report, old.folder).detail).toMatch(
      /^past Goose's own 14-day log retention, which only runs when Goose starts: .* no process holds it \(2 entries, /,
    );
    expect(itemAt(report, old.folder).bytes).toBeGreaterThan(0);
    expect(itemAt(report, recent.folder).detail).toMatch(
      /^Goose's own rule keeps it: the folder's mtime .* is younger/,
    );
    const flatItem = itemAt(report, flat);
    expect(flatItem.bytes).toBeGreaterThan(100_000);
    expect(flatItem.detail).toMatch(
      /^a log file in Goose's older flat layout \(written by goosed, .*; no process holds it open\): Goose's own rule never removes plain files there/,
    );
    expect(itemAt(report, path.dirname(sessions)).detail).toMatch(/^Goose's sessions \(1 entry, /);
    expectOnlyRemoved(s.root, before, inventory(s.root), [old.folder, oldServer.folder]);
    expect(young.files.length).toBe(1);

    // A second pass finds nothing more to do.
    const settled = inventory(s.root);
    const again = await runGoose(s);
    expect(again.report.items.filter((item) => item.verdict === 'deleted')).toEqual([]);
    expectUnchanged(settled, inventory(s.root));
  });

  it('a report-only pass plans the same deletions and changes nothing', async () => {
    const s = gooseScene();
    const old = dateFolder(s, 'cli', daysAgo(20));
    flatLog(s, 'cli', daysAgo(20), '');
    const before = inventory(s.root);

    const { report } = await runGoose(s, { reportOnly: true });

    expect(itemAt(report, old.folder)).toMatchObject({ verdict: 'would-delete', reason: 'goose-log-expired' });
    expect(report.totals.wouldReclaimBytes).toBe(itemAt(report, old.folder).bytes);
    expectUnchanged(before, inventory(s.root));
  });

  it('a date folder Goose would remove by its own mtime, but with a file written since, is too recent', async () => {
    const s = gooseScene();
    // A goosed started 20 days ago keeps writing into its start day's folder: the folder's mtime stays old.
    const started = dateFolder(s, 'server', daysAgo(20), ['-goosed']);
    writeFileSync(started.files[0] as string, 'one more line\n', { flag: 'a' });
    utimesSync(started.files[0] as string, daysAgo(2), daysAgo(2));
    // Within minAge of the 14 days: newest write 14 days and 30 minutes ago, minAge 1h.
    const edge = dateFolder(s, 'cli', new Date(daysAgo(14).getTime() - 30 * 60_000));
    const before = inventory(s.root);

    const { report } = await runGoose(s);

    for (const folder of [started.folder, edge.folder]) {
      const item = itemAt(report, folder);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'too-recent' });
      expect(item.detail).toMatch(
        /^Goose's own rule would remove it \(the folder's mtime .* is older than 14 days\), but a file in it was written at .*, younger than 14 days plus minAge 1h/,
      );
    }
    expectUnchanged(before, inventory(s.root));
  });

  it('never follows a link: a date folder that is a link, and a logs folder reached through one', async () => {
    const s = gooseScene();
    const elsewhere = path.join(s.root, 'elsewhere', dayNameOf(daysAgo(30)));
    put(path.join(elsewhere, 'precious.txt'), 'not a log\n');
    backdate(path.join(s.root, 'elsewhere'), daysAgo(30));
    const cli = path.join(s.state, 'logs', 'cli');
    mkdirSync(cli, { recursive: true });
    const link = path.join(cli, dayNameOf(daysAgo(25)));
    symlinkSync(elsewhere, link);
    // The server's folder is a link to a folder of old date folders.
    const outside = path.join(s.root, 'server-logs');
    const target = path.join(outside, dayNameOf(daysAgo(40)));
    put(path.join(target, '20261001_101010-goosed.log'), 'x\n');
    backdate(outside, daysAgo(40));
    symlinkSync(outside, path.join(s.state, 'logs', 'server'));
    backdate(path.join(s.state, 'logs'), daysAgo(25));
    const before = inventory(s.root);

    const { report } = await runGoose(s);

    expect(itemAt(report, link)).toMatchObject({ verdict: 'refused', reason: 'symlink' });
    expect(itemAt(report, link).detail).toContain('a link is never followed');
    expect(itemAt(report, path.join(s.state, 'logs', 'server', path.basename(target)))).toMatchObject({
      verdict: 'refused',
      reason: 'symlink-in-path',
    });
    expectUnchanged(before, inventory(s.root));
  });

  it('finishes a quarantine an interrupted pass left in logs/<component>/', async () => {
    const s = gooseScene();
    const leftover = path.join(s.state, 'logs', 'cli', '.2026-10-01.cleanup-0f8e4c2a-9b1d-4e7f-8a3c-5d6e7f8a9b0c');
    put(path.join(leftover, '20261001_101010.log'), 'x\n');
    backdate(path.join(s.state, 'logs'), daysAgo(20));
    const before = inventory(s.root);

    const { report } = await runGoose(s);

    expect(itemAt(report, leftover)).toMatchObject({
      kind: 'quarantine',
      verdict: 'deleted',
      reason: 'quarantine-leftover',
    });
    expectOnlyRemoved(s.root, before, inventory(s.root), [leftover]);
  });

  it('with its own XDG_STATE_HOME, the pass looks there for its own home', async () => {
    const s = gooseScene();
    const xdg = path.join(s.root, 'xdg-state');
    const moved = { ...s, state: path.join(xdg, 'goose') };
    const old = dateFolder(moved, 'cli', daysAgo(20));
    const ignored = dateFolder(s, 'cli', daysAgo(20));
    const before = inventory(s.root);

    const { report } = await runGoose(s, { env: { HOME: s.home, XDG_STATE_HOME: xdg } });

    expect(report.providers.map((root) => root.root)).toEqual([path.join(xdg, 'goose')]);
    expect(itemAt(report, old.folder).verdict).toBe('deleted');
    expect(report.items.some((item) => item.path === ignored.folder)).toBe(false);
    expectOnlyRemoved(s.root, before, inventory(s.root), [old.folder]);
  });
});

describe('goose: a live writer holds its log', () => {
  it('a flat log goosed holds open is refused in-use, however large, its bytes held, saying to restart goosed; stopped, too', async () => {
    const s = gooseScene();
    const flat = flatLog(s, 'server', daysAgo(40), '-goosed', 5000);
    const held = dateFolder(s, 'server', daysAgo(20), ['-goosed']);
    const goosed = await goosedWriting(flat);
    const inFolder = await goosedWriting(held.files[0] as string);
    const before = inventory(s.root);

    for (const stopped of [false, true]) {
      if (stopped) {
        for (const each of [goosed, inFolder]) process.kill(each.pid, 'SIGSTOP');
        await waitFor(() => [goosed, inFolder].every((each) => stateOf(each.pid) === 'T'));
      }
      const { report } = await runGoose(s);

      const item = itemAt(report, flat);
      expect(item).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(item.bytes).toBeGreaterThan(200_000);
      expect(item.detail).toMatch(
        new RegExp(`^process ${goosed.pid} \\(.*goosed 600.*\\) has it open or mapped; only stopping it frees its `),
      );
      expect(item.detail).toContain('restart goosed (quit and reopen Goose) so it starts a new log');
      const folder = itemAt(report, held.folder);
      expect(folder).toMatchObject({ verdict: 'refused', reason: 'in-use' });
      expect(folder.detail).toContain(`held open by process ${inFolder.pid} (`);
      expect(folder.detail).toContain('restart goosed');
      expectUnchanged(before, inventory(s.root));
    }
  });
});

/** The state letter of a process (`S`, `T` stopped). */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

function dayNameOf(when: Date): string {
  return when.toISOString().slice(0, 10);
}
