import type { PassProgress } from '../core/progress.js';
import type { ProviderName } from '../core/types.js';
import { formatBytes } from '../util/format.js';

/** The terminal a progress line is drawn on: stderr, when it is one. */
export interface ProgressTerminal {
  write(text: string): unknown;
  /** Its width; a line that wrapped could no longer be rewritten in place. */
  columns?: number;
}

/** Back to the start of the line, and the line cleared. */
const CLEAR_LINE = '\r\x1b[2K';

/**
 * One live line on a terminal: the provider at work, the items judged and the bytes measured so far,
 * rewritten in place at most once per `intervalMs` and erased at the end. It writes nothing but that
 * line, so logs drawn on the same terminal go through `around`, which takes the line away first.
 */
export class TerminalProgress implements PassProgress {
  private provider: ProviderName | null = null;
  private judgedCount = 0;
  private bytes = 0;
  private readonly roots = new Set<string>();
  private shown = false;
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private pending: NodeJS.Timeout | null = null;
  private finished = false;

  constructor(
    private readonly terminal: ProgressTerminal,
    private readonly intervalMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {}

  gathering(provider: ProviderName): void {
    this.provider = provider;
    this.changed();
  }

  measured(root: string, bytes: number): void {
    if (this.roots.has(root)) return;
    this.roots.add(root);
    this.bytes += bytes;
    this.changed();
  }

  judged(provider: ProviderName): void {
    this.provider = provider;
    this.judgedCount += 1;
    this.changed();
  }

  /** The line as it reads now. */
  text(): string {
    const items = `${this.judgedCount} item${this.judgedCount === 1 ? '' : 's'} judged`;
    return `agent-janitor: ${this.provider ?? 'starting'}, ${items}, ${formatBytes(this.bytes)} measured`;
  }

  /** Writes something else to the terminal (a log line) without the progress line in its way. */
  around(write: () => void): void {
    const wasShown = this.shown;
    this.clear();
    write();
    if (wasShown && !this.finished) this.draw();
  }

  /** Takes the line away for good: the pass is over, or failed. */
  finish(): void {
    this.finished = true;
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
    this.clear();
  }

  private changed(): void {
    if (this.finished) return;
    const wait = this.lastDrawn + this.intervalMs - this.now();
    if (wait <= 0) {
      if (this.pending) clearTimeout(this.pending);
      this.pending = null;
      this.draw();
      return;
    }
    if (this.pending) return;
    // The latest state is drawn once the interval is up, even if nothing changes after it.
    this.pending = setTimeout(() => {
      this.pending = null;
      if (!this.finished) this.draw();
    }, wait);
    this.pending.unref();
  }

  private draw(): void {
    const width = this.terminal.columns && this.terminal.columns > 1 ? this.terminal.columns - 1 : 79;
    const text = this.text();
    this.terminal.write(CLEAR_LINE + (text.length > width ? text.slice(0, width) : text));
    this.shown = true;
    this.lastDrawn = this.now();
  }

  private clear(): void {
    if (!this.shown) return;
    this.terminal.write(CLEAR_LINE);
    this.shown = false;
  }
}

/**
 * The progress line for `run`, or null: only when stderr is a terminal that understands it, and
 * never beside machine output (`--json`).
 */
export function terminalProgressFor(
  stderr: ProgressTerminal & { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
  machineOutput: boolean,
): TerminalProgress | null {
  if (!stderr.isTTY || machineOutput || env.TERM === 'dumb') return null;
  return new TerminalProgress(stderr);
}
