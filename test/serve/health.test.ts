import { describe, expect, it } from 'vitest';
import { judgeHealth, type HealthFacts } from '../../src/serve/health.js';
import { parseListen } from '../../src/serve/listen.js';
import { scheduleIntervalMs } from '../../src/serve/schedule.js';

const MIN = 60_000;
const base: HealthFacts = {
  startedAt: 0,
  passRunning: false,
  lastPass: null,
  lastSuccessAt: null,
  intervalMs: 30 * MIN,
  now: 0,
};

describe('/healthz judgement', () => {
  it('is 200 while the first pass is under way within two intervals, 503 after', () => {
    expect(judgeHealth({ ...base, passRunning: true, now: 59 * MIN })).toMatchObject({
      status: 200,
      body: { status: 'starting' },
    });
    expect(judgeHealth({ ...base, passRunning: true, now: 61 * MIN })).toMatchObject({
      status: 503,
      body: { status: 'stale' },
    });
  });

  it('is 200 for a success within two intervals, 503 for an older one or a failure', () => {
    const ok = { finishedAt: 10 * MIN, succeeded: true, failure: null };
    expect(judgeHealth({ ...base, lastPass: ok, lastSuccessAt: ok.finishedAt, now: 70 * MIN }).status).toBe(200);
    const stale = judgeHealth({ ...base, lastPass: ok, lastSuccessAt: ok.finishedAt, now: 71 * MIN });
    expect(stale).toMatchObject({
      status: 503,
      body: { status: 'stale', lastSuccessAt: new Date(10 * MIN).toISOString() },
    });
    expect(stale.body.reason).toBe('the last pass succeeded 3660s ago, more than two schedule intervals (3600s)');
    const failed = judgeHealth({
      ...base,
      lastPass: { finishedAt: 69 * MIN, succeeded: false, failure: 'provider kilo could not be reconciled' },
      lastSuccessAt: ok.finishedAt,
      now: 70 * MIN,
    });
    expect(failed).toMatchObject({ status: 503, body: { status: 'failing' } });
    expect(failed.body.reason).toContain('provider kilo could not be reconciled');
  });

  it('judges an irregular schedule by its longest gap', () => {
    expect(scheduleIntervalMs('*/30 * * * *')).toBe(30 * MIN);
    expect(scheduleIntervalMs('* * * * * *')).toBe(1000);
    // Friday 03:00 to Monday 03:00 (an hour either way where a DST change falls in the weekend).
    expect(Math.abs(scheduleIntervalMs('0 3 * * 1-5') - 72 * 60 * MIN)).toBeLessThanOrEqual(60 * MIN);
  });
});

describe('--listen and serve.listen', () => {
  it('reads HOST:PORT, [IPv6]:PORT and :PORT, and names the option on anything else', () => {
    expect(parseListen('0.0.0.0:9464', '--listen')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseListen('[::1]:9464', '--listen')).toEqual({ host: '::1', port: 9464 });
    expect(parseListen(':9464', '--listen')).toEqual({ host: undefined, port: 9464 });
    expect(parseListen('localhost:0', '--listen')).toEqual({ host: 'localhost', port: 0 });
    expect(() => parseListen('9464', '--listen')).toThrow('--listen: expected HOST:PORT');
    expect(() => parseListen('host:70000', 'cfg.yaml: serve.listen')).toThrow(
      'cfg.yaml: serve.listen: expected HOST:PORT',
    );
  });
});
