import { describe, expect, it } from 'vitest';
import {
  judgeSessionDiff,
  judgeTimestampedLog,
  judgeToolOutput,
  SESSION_DIFF,
  tenthNewestLog,
  TIMESTAMPED_LOG,
} from '../../../src/providers/kilo/retention-judge.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 11, 7);
const logName = (day: number) => `2025-06-${String(day).padStart(2, '0')}T093015.log`;

describe("opencode's own retention: the per-process logs", () => {
  it('names only what an older opencode named after its start time', () => {
    expect(TIMESTAMPED_LOG.test('2025-06-01T093015.log')).toBe(true);
    for (const name of ['opencode.log', '2025-06-01T09:30:15.log', '2025-06-01T093015.log.1', 'x2025-06-01T093015.log'])
      expect(TIMESTAMPED_LOG.test(name), name).toBe(false);
  });

  it('keeps the ten newest by name, and none is beyond while there are ten', () => {
    const ten = Array.from({ length: 10 }, (_, k) => logName(k + 1));
    expect(tenthNewestLog(ten)).toBeNull();
    expect(judgeTimestampedLog(logName(1), null, logName(10)).decision).toBe('kept');
    const twelve = [...ten, logName(11), logName(12), 'opencode.log', 'gitlab-auth.log'].reverse();
    const tenth = tenthNewestLog(twelve);
    expect(tenth).toBe(logName(3));
    expect(twelve.filter((name) => TIMESTAMPED_LOG.test(name) && name < (tenth as string)).sort()).toEqual([
      logName(1),
      logName(2),
    ]);
    expect(judgeTimestampedLog(logName(2), tenth, logName(12))).toMatchObject({
      decision: 'delete',
      reason: 'opencode-log-rotated',
      detail: expect.stringContaining('started 2025-06-02T09:30:15Z'),
    });
    expect(judgeTimestampedLog(logName(3), tenth, logName(12))).toMatchObject({
      decision: 'kept',
      reason: 'opencode-log-reported',
    });
  });
});

describe("opencode's own retention: tool outputs", () => {
  it('go once older than seven days, or than minAge where it is longer', () => {
    expect(judgeToolOutput(NOW - 7 * DAY - 1, NOW, HOUR)).toMatchObject({
      decision: 'delete',
      reason: 'opencode-tool-output-expired',
    });
    expect(judgeToolOutput(NOW - 7 * DAY, NOW, HOUR)).toMatchObject({
      decision: 'kept',
      reason: 'opencode-tool-output-retained',
      detail: expect.stringContaining(`may go after ${new Date(NOW).toISOString()}`),
    });
    expect(judgeToolOutput(NOW - 9 * DAY, NOW, 10 * DAY)).toMatchObject({
      decision: 'kept',
      detail: expect.stringContaining('within minAge 10d'),
    });
    expect(judgeToolOutput(NOW - 11 * DAY, NOW, 10 * DAY).decision).toBe('delete');
    // Written in the future: not past anything.
    expect(judgeToolOutput(NOW + DAY, NOW, HOUR).decision).toBe('kept');
  });
});

describe("opencode's own retention: session diffs", () => {
  it('names a diff by its session id only', () => {
    expect(SESSION_DIFF.exec('ses_db20dcc45ffeuc20twve7hUNuH.json')?.[1]).toBe('ses_db20dcc45ffeuc20twve7hUNuH');
    for (const name of ['ses_x.json.tmp', 'notes.json', 'ses_../x.json', 'ses_.json'])
      expect(SESSION_DIFF.test(name), name).toBe(false);
  });

  it('goes only when its session is known to be gone, and is refused when that cannot be known', () => {
    expect(judgeSessionDiff('ses_a', { state: 'live', where: 'a database' })).toMatchObject({
      decision: 'kept',
      reason: 'opencode-diff-live',
    });
    expect(judgeSessionDiff('ses_a', { state: 'unknown', why: 'opencode.db cannot be read' })).toMatchObject({
      decision: 'refused',
      reason: 'owner-unknown',
      detail: expect.stringContaining('opencode.db cannot be read'),
    });
    expect(judgeSessionDiff('ses_a', { state: 'gone', databases: ['opencode.db', 'opencode-dev.db'] })).toMatchObject({
      decision: 'delete',
      reason: 'opencode-diff-orphaned',
      detail: expect.stringContaining('no database has (opencode.db, opencode-dev.db)'),
    });
  });
});
