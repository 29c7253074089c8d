import { describe, expect, it } from 'vitest';
import type { ReportItem } from '../../src/model/types.js';
import { TerminalProgress, terminalProgressFor } from '../../src/outputs/progress.js';

const CLEAR = '\r\x1b[2K';

/** A terminal that keeps what was written, and a clock the test moves. */
function setup(columns = 200) {
  const writes: string[] = [];
  const terminal = { columns, write: (text: string) => writes.push(text) };
  let now = 1_000;
  const progress = new TerminalProgress(terminal, 100, () => now);
  return { writes, progress, advance: (ms: number) => (now += ms) };
}

/** A planned deletion as the executor tells how it ended. */
function outcome(path: string, verdict: ReportItem['verdict'], bytes = 1024): ReportItem {
  return { provider: 'watchfire', kind: 'session-home', path, bytes, verdict, reason: 'project-deleted', detail: '' };
}

describe('the progress line', () => {
  it('says it is starting before any phase', () => {
    expect(setup().progress.text()).toBe('agent-janitor: starting');
  });

  it('gathering: the provider at work, which of how many, for how long, and what was found so far', () => {
    const { writes, progress, advance } = setup();
    progress.gathering('watchfire', 1, 3);
    expect(writes).toEqual([`${CLEAR}agent-janitor gathering: watchfire (1 of 3, 0 s), 0 items found, 0 B measured`]);
    progress.measured('/home/ana/.watchfire/codex-home/a:chat', 2048);
    progress.gathered('watchfire', 1_204);
    progress.gathering('kilo', 2, 3);
    advance(12_400);
    expect(progress.text()).toBe('agent-janitor gathering: kilo (2 of 3, 12 s), 1,204 items found, 2.0 KiB measured');
    progress.gathered('kilo', 1);
    expect(progress.text()).toContain('1,205 items found');
  });

  it('inspecting: the items inspected of the total, and the bytes measured', () => {
    const { progress } = setup();
    progress.measured('/a', 1024);
    progress.inspecting(812);
    expect(progress.text()).toBe('agent-janitor inspecting: 0 of 812 items, 1.0 KiB measured');
    for (let k = 0; k < 120; k += 1) progress.inspected();
    progress.measured('/b', 3 * 1024 * 1024);
    expect(progress.text()).toBe('agent-janitor inspecting: 120 of 812 items, 3.0 MiB measured');
  });

  it('deleting: the items done of the total, the deletions, the bytes freed of the total, and what did not go', () => {
    const { progress } = setup();
    progress.deleting(4, 4 * 1024 * 1024);
    expect(progress.text()).toBe('agent-janitor deleting: 0 of 4 items, 0 deleted, 0 B of 4.0 MiB freed');
    progress.settled(outcome('/a', 'deleted', 1024 * 1024));
    progress.settled(outcome('/b', 'deleted', 1024 * 1024));
    expect(progress.text()).toBe('agent-janitor deleting: 2 of 4 items, 2 deleted, 2.0 MiB of 4.0 MiB freed');
    progress.settled(outcome('/c', 'failed'));
    progress.settled(outcome('/d', 'refused'));
    expect(progress.text()).toBe(
      'agent-janitor deleting: 4 of 4 items, 2 deleted, 2.0 MiB of 4.0 MiB freed, 1 failed, 1 refused',
    );
  });

  it('counts a deletion once when a later word on the same item replaces the first', () => {
    // A folder removed whose audit line could not be written is failed after it was deleted.
    const { progress } = setup();
    progress.deleting(1, 1024);
    progress.settled(outcome('/a', 'deleted'));
    progress.settled(outcome('/a', 'failed'));
    expect(progress.text()).toBe('agent-janitor deleting: 1 of 1 item, 0 deleted, 0 B of 1.0 KiB freed, 1 failed');
  });

  it('is redrawn at most once per interval, and draws the latest state once it is up', () => {
    const { writes, progress, advance } = setup();
    progress.inspecting(100);
    for (let k = 0; k < 50; k += 1) {
      advance(1);
      progress.inspected();
    }
    expect(writes).toHaveLength(1);
    advance(50);
    progress.measured('/home/ana/a', 2048);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(`${CLEAR}agent-janitor inspecting: 50 of 100 items, 2.0 KiB measured`);
    progress.finish();
  });

  it('draws a change held back by the interval once the interval is up, even with no further change', async () => {
    const writes: string[] = [];
    const progress = new TerminalProgress({ columns: 200, write: (text: string) => writes.push(text) }, 30);
    progress.deleting(2, 2048);
    progress.settled(outcome('/a', 'deleted'));
    expect(writes).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(writes.at(-1)).toBe(`${CLEAR}agent-janitor deleting: 1 of 2 items, 1 deleted, 1.0 KiB of 2.0 KiB freed`);
    progress.finish();
  });

  it('while a provider gathers, draws its seconds as they pass, and stops once it finishes', async () => {
    const writes: string[] = [];
    let now = 0;
    const progress = new TerminalProgress(
      { columns: 200, write: (text: string) => writes.push(text) },
      10,
      () => now,
      20,
    );
    progress.gathering('kilo', 1, 1);
    now = 1_000;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(writes[1]).toBe(`${CLEAR}agent-janitor gathering: kilo (1 of 1, 1 s), 0 items found, 0 B measured`);
    progress.finish();
    const erased = writes.length;
    expect(writes.at(-1)).toBe(CLEAR);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(writes).toHaveLength(erased);
  });

  it('counts each measured tree once', () => {
    const { progress } = setup();
    progress.inspecting(0);
    progress.measured('/a', 1024);
    progress.measured('/a', 1024);
    progress.measured('/b', 1024);
    expect(progress.text()).toBe('agent-janitor inspecting: 0 of 0 items, 2.0 KiB measured');
  });

  it('never wraps: the line is cut to the terminal’s width', () => {
    const { writes, progress } = setup(20);
    progress.inspecting(3);
    expect(writes[0]).toBe(`${CLEAR}agent-janitor inspe`);
  });

  it('takes itself away around a log line and comes back after it', () => {
    const { writes, progress } = setup();
    progress.inspecting(3);
    progress.around(() => writes.push('a log line\n'));
    expect(writes.slice(1)).toEqual([
      CLEAR,
      'a log line\n',
      `${CLEAR}agent-janitor inspecting: 0 of 3 items, 0 B measured`,
    ]);
  });

  it('is erased at the end and draws nothing after', () => {
    const { writes, progress, advance } = setup();
    progress.gathering('roo', 1, 1);
    progress.finish();
    advance(1_000);
    progress.gathered('roo', 3);
    progress.inspecting(3);
    progress.around(() => writes.push('late log\n'));
    expect(writes).toEqual([
      `${CLEAR}agent-janitor gathering: roo (1 of 1, 0 s), 0 items found, 0 B measured`,
      CLEAR,
      'late log\n',
    ]);
  });

  it('writes nothing to erase when it never drew', () => {
    const { writes, progress } = setup();
    progress.finish();
    expect(writes).toEqual([]);
  });
});

describe('when there is a progress line', () => {
  const tty = { isTTY: true, columns: 80, write: () => true };
  it('only on a terminal, not beside machine output, not on a dumb terminal', () => {
    expect(terminalProgressFor(tty, { TERM: 'xterm' }, false)).toBeInstanceOf(TerminalProgress);
    expect(terminalProgressFor(tty, {}, false)).toBeInstanceOf(TerminalProgress);
    expect(terminalProgressFor({ ...tty, isTTY: false }, { TERM: 'xterm' }, false)).toBeNull();
    expect(terminalProgressFor({ columns: 80, write: () => true }, { TERM: 'xterm' }, false)).toBeNull();
    expect(terminalProgressFor(tty, { TERM: 'xterm' }, true)).toBeNull();
    expect(terminalProgressFor(tty, { TERM: 'dumb' }, false)).toBeNull();
  });
});
