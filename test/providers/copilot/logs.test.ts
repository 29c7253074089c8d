import { lutimesSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put } from '../../helpers/fs-fixtures.js';
import { expectOnly } from '../../helpers/git-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { spawnLiving, waitFor } from '../../helpers/processes.js';
import { stateOf } from '../../support/real-clis/run.js';
import { copilotProcess, copilotWorld, detailOf, endedPid, ended, logFile, runCopilot, verdictOf } from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms);
const rel = (root: string, file: string) => path.relative(root, file);

describe('copilot: Copilot CLI’s own log rule, applied where Copilot does not', () => {
  it('deletes the logs of ended processes older than seven days, and keeps the younger ones', async () => {
    const w = copilotWorld();
    const old = [logFile(w.logs, endedPid(), ago(8 * DAY)), logFile(w.logs, endedPid(), ago(30 * DAY))];
    const young = [logFile(w.logs, endedPid(), ago(6 * DAY)), logFile(w.logs, endedPid(), ago(2 * HOUR))];
    // Not a process log: Copilot's rule counts only `process-*.log`.
    const error = put(path.join(w.logs, 'error.log'), 'old\n');
    lutimesSync(error, ago(40 * DAY), ago(40 * DAY));
    const before = inventory(w.root);

    const dry = await runCopilot(w, { reportOnly: true });
    for (const file of old) expect(verdictOf(dry, file)).toBe('would-delete log-retention');
    expectOnly(before, inventory(w.root), {});

    const result = await runCopilot(w);
    expect(result.exitCode).toBe(0);
    for (const file of old) {
      expect(verdictOf(result, file)).toBe('deleted log-retention');
      expect(detailOf(result, file)).toContain("past Copilot CLI's own seven-day log retention");
    }
    for (const file of young) expect(verdictOf(result, file)).toBe('kept log-retained');
    expect(verdictOf(result, error)).toBe('absent');
    expectOnly(before, inventory(w.root), {
      removed: old.map((file) => rel(w.root, file)),
      changedDirs: [rel(w.root, w.logs)],
    });
  });

  it('with more than fifty logs, deletes every one fifty newer logs outrank, never one a tie may save', async () => {
    const w = copilotWorld();
    // 49 logs, each an hour apart from two hours old on; then two written at the same moment, then three older.
    const newest = Array.from({ length: 49 }, (_, k) => logFile(w.logs, endedPid(), ago((2 + k) * HOUR)));
    const tie = ago(60 * HOUR);
    const tied = [logFile(w.logs, endedPid(), tie), logFile(w.logs, endedPid(), tie)];
    const beyond = [61, 62, 63].map((hours) => logFile(w.logs, endedPid(), ago(hours * HOUR)));
    const before = inventory(w.root);

    const result = await runCopilot(w);

    for (const file of [...newest, ...tied]) expect(verdictOf(result, file)).toBe('kept log-retained');
    // Copilot ranks the tied pair in listing order: one of them is 50th, the other 51st. Neither goes.
    expect(detailOf(result, tied[0] as string)).toContain('among the 50 newest of the 54 logs');
    for (const file of beyond) {
      expect(verdictOf(result, file)).toBe('deleted log-retention');
      expect(detailOf(result, file)).toContain(
        "of the 54 logs are newer, and Copilot CLI's own rule keeps only the 50 newest",
      );
    }
    expectOnly(before, inventory(w.root), {
      removed: beyond.map((file) => rel(w.root, file)),
      changedDirs: [rel(w.root, w.logs)],
    });
  });

  it('keeps the log of a live process, stopped or not, and refuses one another process holds open', async () => {
    const w = copilotWorld();
    const writer = await copilotProcess();
    const ofLive = logFile(w.logs, writer.pid as number, ago(9 * DAY));
    // An ended Copilot's log that some other process still has open (a `tail -f`, say).
    const held = logFile(w.logs, endedPid(), ago(9 * DAY));
    const tail = spawnLiving('bash', ['-c', `exec 3<"${held}"; exec sleep 600`]);
    await waitFor(() => {
      try {
        return readlinkSync(`/proc/${tail.pid}/fd/3`) === held;
      } catch {
        return false;
      }
    });
    const before = inventory(w.root);

    const running = await runCopilot(w);
    expect(verdictOf(running, ofLive)).toBe('kept log-writer-live');
    expect(detailOf(running, ofLive)).toContain(`the log of process ${writer.pid} (copilot), which is alive`);
    expect(verdictOf(running, held)).toBe('refused in-use');
    expect(detailOf(running, held)).toContain(`${tail.pid}`);

    writer.kill('SIGSTOP');
    await waitFor(() => stateOf(writer.pid as number) === 'T');
    const stopped = await runCopilot(w);
    expect(verdictOf(stopped, ofLive)).toBe('kept log-writer-live');
    expectOnly(before, inventory(w.root), {});

    await ended(writer);
    const after = await runCopilot(w);
    expect(verdictOf(after, ofLive)).toBe('deleted log-retention');
    expect(verdictOf(after, held)).toBe('refused in-use');
    expectOnly(before, inventory(w.root), { removed: [rel(w.root, ofLive)], changedDirs: [rel(w.root, w.logs)] });
  });

  it('never follows a log that is a link, and counts it for nothing', async () => {
    const w = copilotWorld();
    const target = put(path.join(w.root, 'elsewhere', 'precious.log'), 'keep me\n');
    lutimesSync(target, ago(30 * DAY), ago(30 * DAY));
    const link = path.join(w.logs, `process-${ago(30 * DAY).getTime()}-${endedPid()}.log`);
    symlinkSync(target, link);
    lutimesSync(link, ago(30 * DAY), ago(30 * DAY));
    const before = inventory(w.root);

    const result = await runCopilot(w);

    expect(verdictOf(result, link)).toBe('refused symlink');
    expect(detailOf(result, link)).toContain('never followed');
    expectOnly(before, inventory(w.root), {});
  });
});
