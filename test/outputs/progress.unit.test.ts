import { describe, expect, it } from 'vitest';
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

describe('the progress line', () => {
  it('draws the provider, the items judged and the bytes measured, in place', () => {
    const { writes, progress } = setup();
    progress.gathering('kilo');
    expect(writes).toEqual([`${CLEAR}agent-janitor: kilo, 0 items judged, 0 B measured`]);
  });

  it('is redrawn at most once per interval, and draws the latest state once it is up', async () => {
    const { writes, progress, advance } = setup();
    progress.gathering('watchfire');
    for (let k = 0; k < 50; k += 1) {
      advance(1);
      progress.judged('watchfire');
    }
    expect(writes).toHaveLength(1);
    advance(50);
    progress.measured('/home/ana/a', 2048);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(`${CLEAR}agent-janitor: watchfire, 50 items judged, 2.0 KiB measured`);
  });

  it('draws a change held back by the interval once the interval is up, even with no further change', async () => {
    const writes: string[] = [];
    const progress = new TerminalProgress({ columns: 200, write: (text: string) => writes.push(text) }, 30);
    progress.gathering('owl');
    progress.judged('owl');
    expect(writes).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(writes.at(-1)).toBe(`${CLEAR}agent-janitor: owl, 1 item judged, 0 B measured`);
    progress.finish();
  });

  it('counts each measured tree once', () => {
    const { progress } = setup();
    progress.measured('/a', 1024);
    progress.measured('/a', 1024);
    progress.measured('/b', 1024);
    expect(progress.text()).toBe('agent-janitor: starting, 0 items judged, 2.0 KiB measured');
  });

  it('never wraps: the line is cut to the terminal’s width', () => {
    const { writes, progress } = setup(20);
    progress.gathering('worktrees');
    expect(writes[0]).toBe(`${CLEAR}agent-janitor: work`);
  });

  it('takes itself away around a log line and comes back after it', () => {
    const { writes, progress } = setup();
    progress.gathering('cline');
    progress.around(() => writes.push('a log line\n'));
    expect(writes.slice(1)).toEqual([
      CLEAR,
      'a log line\n',
      `${CLEAR}agent-janitor: cline, 0 items judged, 0 B measured`,
    ]);
  });

  it('is erased at the end and draws nothing after', () => {
    const { writes, progress, advance } = setup();
    progress.gathering('roo');
    progress.finish();
    advance(1_000);
    progress.judged('roo');
    progress.around(() => writes.push('late log\n'));
    expect(writes).toEqual([`${CLEAR}agent-janitor: roo, 0 items judged, 0 B measured`, CLEAR, 'late log\n']);
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
