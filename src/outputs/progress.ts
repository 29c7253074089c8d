import type { PassProgress } from '../pass/progress.js';
import type { ProviderName, ReportItem } from '../model/types.js';
import { formatBytes, formatCount, formatItems } from '../util/format.js';

/** The terminal a progress line is drawn on: stderr, when it is one. */
export interface ProgressTerminal {
  write(text: string): unknown;
  /** Its width; a line that wrapped could no longer be rewritten in place. */
  columns?: number;
}

/** Back to the start of the line, and the line cleared. */
const CLEAR_LINE = '\r\x1b[2K';
const SECOND_MS = 1000;

type Phase =
  | { name: 'starting' }
  | { name: 'gathering'; provider: ProviderName; nth: number; of: number; since: number }
  | { name: 'inspecting'; total: number }
  | { name: 'deleting'; total: number; bytes: number };

/**
 * How far a pass got, as it goes: the phase, the provider at work and what was found so far
 * (gathering), items inspected of the total (inspecting), and how each planned deletion ended
 * (deleting). A pass stopped by a signal says this much of itself (`howFar`); on a terminal the
 * progress line below draws it.
 */
export class PassTrail implements PassProgress {
  protected phase: Phase = { name: 'starting' };
  protected found = 0;
  protected measuredBytes = 0;
  private readonly roots = new Set<string>();
  protected inspectedCount = 0;
  /** How each planned deletion ended so far, by its path: a later word on one replaces the earlier. */
  protected readonly outcomes = new Map<string | ReportItem, ReportItem>();

  constructor(protected readonly now: () => number = () => performance.now()) {}

  gathering(provider: ProviderName, nth: number, of: number): void {
    this.phase = { name: 'gathering', provider, nth, of, since: this.now() };
    this.changed();
  }

  gathered(_provider: ProviderName, count: number): void {
    this.found += count;
    this.changed();
  }

  measured(root: string, bytes: number): void {
    if (this.roots.has(root)) return;
    this.roots.add(root);
    this.measuredBytes += bytes;
    this.changed();
  }

  inspecting(total: number): void {
    this.phase = { name: 'inspecting', total };
    this.changed();
  }

  inspected(): void {
    this.inspectedCount += 1;
    this.changed();
  }

  deleting(total: number, bytes: number): void {
    this.phase = { name: 'deleting', total, bytes };
    this.changed();
  }

  settled(outcome: ReportItem): void {
    this.outcomes.set(outcome.path ?? outcome, outcome);
    this.changed();
  }

  /** Told after every change: the progress line redraws itself. */
  protected changed(): void {}

  /** The deletions so far: how many of each verdict they ended with (deleted first), and the bytes freed. */
  protected deletions(): { byVerdict: Map<ReportItem['verdict'], number>; freed: number } {
    const byVerdict = new Map<ReportItem['verdict'], number>([['deleted', 0]]);
    let freed = 0;
    for (const { verdict, bytes } of this.outcomes.values()) {
      byVerdict.set(verdict, (byVerdict.get(verdict) ?? 0) + 1);
      if (verdict === 'deleted') freed += bytes;
    }
    return { byVerdict, freed };
  }

  /** Where the pass is, for a log line's fields. */
  position(): { phase: Phase['name']; deleted: number; freedBytes: number } {
    const { byVerdict, freed } = this.deletions();
    return { phase: this.phase.name, deleted: byVerdict.get('deleted') ?? 0, freedBytes: freed };
  }

  /** "while deleting: 12 of 40 planned deletions done, 10 deleted (1.2 MiB freed)": how far the pass got, in words. */
  howFar(): string {
    const { phase } = this;
    const nothing = 'nothing was deleted';
    switch (phase.name) {
      case 'starting':
        return `before it began gathering; ${nothing}`;
      case 'gathering':
        return `while gathering (${phase.provider}, provider ${phase.nth} of ${phase.of}, ${formatItems(this.found)} found so far); ${nothing}`;
      case 'inspecting':
        return `while inspecting (${formatCount(this.inspectedCount)} of ${formatItems(phase.total)}); ${nothing}`;
      case 'deleting': {
        const { byVerdict, freed } = this.deletions();
        const deleted = byVerdict.get('deleted') ?? 0;
        const done = `${formatCount(this.outcomes.size)} of ${formatCount(phase.total)} planned deletions done`;
        return `while deleting: ${done}, ${formatItems(deleted)} deleted (${formatBytes(freed)} freed)`;
      }
    }
  }
}

/**
 * One live line on a terminal, saying which phase the pass is in and how far it got (PassTrail).
 * Rewritten in place at most once per `intervalMs` and erased at the end. It writes nothing but that
 * line, so logs drawn on the same terminal go through `around`, which takes the line away first.
 */
export class TerminalProgress extends PassTrail {
  private shown = false;
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private pending: NodeJS.Timeout | null = null;
  private tick: NodeJS.Timeout | null = null;
  private finished = false;

  constructor(
    private readonly terminal: ProgressTerminal,
    private readonly intervalMs = 100,
    now: () => number = () => performance.now(),
    /** Gathering has no total to count up to: the seconds the provider has been at work show it is. */
    private readonly tickMs = SECOND_MS,
  ) {
    super(now);
  }

  /** The line as it reads now. */
  text(): string {
    const { phase } = this;
    const measured = `${formatBytes(this.measuredBytes)} measured`;
    switch (phase.name) {
      case 'starting':
        return 'agent-janitor: starting';
      case 'gathering': {
        const seconds = Math.floor(Math.max(0, this.now() - phase.since) / SECOND_MS);
        const provider = `${phase.provider} (${phase.nth} of ${phase.of}, ${seconds} s)`;
        return `agent-janitor gathering: ${provider}, ${formatItems(this.found)} found, ${measured}`;
      }
      case 'inspecting':
        return `agent-janitor inspecting: ${formatCount(this.inspectedCount)} of ${formatItems(phase.total)}, ${measured}`;
      case 'deleting': {
        const { byVerdict, freed } = this.deletions();
        const [deleted, ...others] = [...byVerdict].map(([verdict, count]) => `${formatCount(count)} ${verdict}`);
        const done = `${formatCount(this.outcomes.size)} of ${formatItems(phase.total)}`;
        const bytes = `${formatBytes(freed)} of ${formatBytes(phase.bytes)} freed`;
        return [`agent-janitor deleting: ${done}`, deleted, bytes, ...others].join(', ');
      }
    }
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
    for (const timer of [this.pending, this.tick]) if (timer) clearTimeout(timer);
    this.pending = null;
    this.tick = null;
    this.clear();
  }

  protected override changed(): void {
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
    this.tickWhileGathering();
  }

  /** While a provider gathers, the line is drawn again as each of its seconds is up. */
  private tickWhileGathering(): void {
    if (this.tick) clearTimeout(this.tick);
    this.tick = null;
    const { phase } = this;
    if (phase.name !== 'gathering') return;
    const elapsed = Math.max(0, this.now() - phase.since);
    this.tick = setTimeout(
      () => {
        this.tick = null;
        this.changed();
      },
      // A few milliseconds late, so that the second has surely turned when the line is drawn.
      this.tickMs - (elapsed % this.tickMs) + 5,
    );
    this.tick.unref();
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
