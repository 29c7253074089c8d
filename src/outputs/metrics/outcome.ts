import type { ProviderName, Report } from '../../model/types.js';
import { errorMessage } from '../../model/errors.js';

/**
 * What one pass left behind for the metrics: its report, or, when the pass threw before it could
 * write one, only when it ran and which providers it was to reconcile.
 */
export interface PassOutcome {
  report: Report | null;
  /** The pass's own exit code (0 or 1); a pass that threw counts as 1. */
  exitCode: 0 | 1;
  /** The providers the pass was to reconcile (enabled and selected by --only). */
  providers: ProviderName[];
  startedAt: Date;
  finishedAt: Date;
  /** Why a pass that threw did not finish. */
  error?: string;
}

export function outcomeOfReport(report: Report, exitCode: 0 | 1, providers: ProviderName[]): PassOutcome {
  return {
    report,
    exitCode,
    providers,
    startedAt: new Date(report.startedAt),
    finishedAt: new Date(report.finishedAt),
  };
}

export function outcomeOfThrow(
  err: unknown,
  providers: ProviderName[],
  startedAt: Date,
  finishedAt: Date,
): PassOutcome {
  return { report: null, exitCode: 1, providers, startedAt, finishedAt, error: errorMessage(err) };
}

/** One sentence on why a pass did not exit 0, or null when it did. */
export function describeFailure(outcome: PassOutcome): string | null {
  if (outcome.error !== undefined) return `the pass stopped with an error: ${outcome.error}`;
  if (outcome.exitCode === 0 || !outcome.report) return null;
  const reasons: string[] = [];
  for (const root of outcome.report.providers.filter((entry) => !entry.ok)) {
    reasons.push(`provider ${root.provider} at ${root.root} could not be reconciled: ${root.error ?? 'unknown error'}`);
  }
  if (outcome.report.totals.failed > 0) reasons.push(`${outcome.report.totals.failed} deletion(s) failed`);
  return reasons.length > 0 ? reasons.join('; ') : 'the pass exited 1';
}
