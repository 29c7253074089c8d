export interface FinishedPass {
  /** ms since the epoch */
  finishedAt: number;
  succeeded: boolean;
  /** Why it did not succeed. */
  failure: string | null;
}

export interface HealthFacts {
  /** When serve started, ms since the epoch. */
  startedAt: number;
  passRunning: boolean;
  /** The last pass that ran to its end (a tick skipped for the run lock is no pass). */
  lastPass: FinishedPass | null;
  lastSuccessAt: number | null;
  intervalMs: number;
  now: number;
}

export interface Health {
  status: 200 | 503;
  body: {
    status: 'ok' | 'starting' | 'failing' | 'stale';
    reason: string;
    passRunning: boolean;
    lastPassAt: string | null;
    lastSuccessAt: string | null;
    scheduleIntervalSeconds: number;
  };
}

/**
 * 200 while the last pass succeeded, or the first is still under way, within two schedule
 * intervals; else 503. Pure: the facts in, the answer out.
 */
export function judgeHealth(facts: HealthFacts): Health {
  const window = 2 * facts.intervalMs;
  const answer = (status: Health['status'], state: Health['body']['status'], reason: string): Health => ({
    status,
    body: {
      status: state,
      reason,
      passRunning: facts.passRunning,
      lastPassAt: iso(facts.lastPass?.finishedAt ?? null),
      lastSuccessAt: iso(facts.lastSuccessAt),
      scheduleIntervalSeconds: facts.intervalMs / 1000,
    },
  });
  const since = (ms: number) => `${Math.round((facts.now - ms) / 1000)}s ago`;
  const limit = `two schedule intervals (${window / 1000}s)`;

  const last = facts.lastPass;
  if (!last) {
    if (facts.now - facts.startedAt <= window) {
      const what = facts.passRunning ? 'the first pass is under way' : 'no pass has finished yet';
      return answer(200, 'starting', `${what}; serve started ${since(facts.startedAt)}`);
    }
    return answer(
      503,
      'stale',
      `no pass has finished since serve started ${since(facts.startedAt)}, more than ${limit}`,
    );
  }
  if (!last.succeeded) {
    return answer(
      503,
      'failing',
      `the last pass, finished ${since(last.finishedAt)}, failed: ${last.failure ?? 'unknown error'}`,
    );
  }
  if (facts.now - last.finishedAt > window) {
    const running = facts.passRunning ? '; a pass is still under way' : '';
    return answer(503, 'stale', `the last pass succeeded ${since(last.finishedAt)}, more than ${limit}${running}`);
  }
  return answer(200, 'ok', `the last pass succeeded ${since(last.finishedAt)}`);
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
