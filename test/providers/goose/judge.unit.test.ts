import { describe, expect, it } from 'vitest';
import { judgeDateFolder, judgeFlatFile, type Writer } from '../../../src/providers/goose/judge.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;
const goosed: Writer = { pid: 4242, program: 'goosed', named: '4242 (goosed agent, run by ana)' };

const folder = (folderDays: number, newestDays: number, writers: Writer[] | null = []) => ({
  folderMtimeMs: NOW - folderDays * DAY,
  newestWrite: { ms: NOW - newestDays * DAY },
  bytes: 1024,
  entries: 1,
  writers,
});

describe("goose's judge", () => {
  it("goes by the folder's own mtime as Goose does, then asks 14 days plus minAge of its newest write", () => {
    expect(judgeDateFolder(folder(13.9, 20), NOW, HOUR).decision).toBe('kept');
    expect(judgeDateFolder(folder(20, 20), NOW, HOUR)).toMatchObject({
      decision: 'delete',
      reason: 'goose-log-expired',
    });
    expect(judgeDateFolder(folder(20, 14 + 0.5 / 24), NOW, HOUR)).toMatchObject({
      decision: 'refused',
      reason: 'too-recent',
    });
    expect(judgeDateFolder(folder(20, 14 + 2 / 24), NOW, HOUR).decision).toBe('delete');
    expect(judgeDateFolder({ ...folder(20, 20), newestWrite: { problem: 'cannot read x' } }, NOW, HOUR)).toMatchObject({
      decision: 'refused',
      reason: 'unreadable',
      detail: 'cannot read x',
    });
  });

  it('a log a process holds is in-use whatever its age; goosed is told to restart', () => {
    const held = judgeDateFolder(folder(30, 30, [goosed]), NOW, HOUR);
    expect(held).toMatchObject({ decision: 'refused', reason: 'in-use' });
    expect(held.detail).toContain('restart goosed');
    const other = judgeFlatFile({
      bytes: 5,
      mtimeMs: NOW,
      namedWriter: null,
      writers: [{ pid: 7, program: null, named: '7 (tail -f x)' }],
    });
    expect(other.detail).toBe('held open by process 7 (tail -f x); it is freed only once that process ends');
    expect(judgeFlatFile({ bytes: 5, mtimeMs: NOW, namedWriter: 'goosed', writers: null }).detail).toContain(
      'whether a process holds it cannot be seen',
    );
  });
});
