import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import path from 'node:path';
import cron from 'node-cron';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { errorMessage } from '../model/errors.js';
import type { ReconcileOptions } from '../reconcile/reconcile.js';
import { renderLastPass } from '../outputs/metrics/last-pass.js';
import { readLastSuccess } from '../outputs/metrics/textfile.js';
import { REPORT_JSON } from '../outputs/report-files.js';
import { readFileOrNull } from '../safety/fs/read.js';
import { ServeCounters } from './counters.js';
import { judgeHealth } from './health.js';
import { createServeHttp } from './http.js';
import { formatListen, type ListenAddress } from './listen.js';
import { PassRunner } from './pass-runner.js';
import { scheduleIntervalMs, validateSchedule } from './schedule.js';

export interface ServeOptions {
  pass: ReconcileOptions;
  listen: ListenAddress;
  schedule: string;
}

export interface ServeHandle {
  /** Where the HTTP server listens (the real port when 0 was asked for). */
  address: { host: string; port: number };
  runner: PassRunner;
  counters: ServeCounters;
  /** Stops the schedule, finishes the pass under way, closes the HTTP server. */
  stop(): Promise<void>;
}

/** `serve`: HTTP first (so /healthz answers during the first pass), then the schedule, then the first pass. */
export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const { log, config } = options.pass;
  await validateSchedule(options.schedule, 'serve.schedule');
  const intervalMs = scheduleIntervalMs(options.schedule);
  const startedAt = Date.now();
  const counters = new ServeCounters();
  const runner = new PassRunner(options.pass, counters, log, await carriedLastSuccess(config.metrics.textfile, log));

  const server = createServeHttp(
    {
      async metrics() {
        const parts = [await counters.registry.metrics()];
        if (runner.lastOutcome) parts.push(await renderLastPass(runner.lastOutcome, runner.lastSuccessSeconds));
        return { contentType: Registry.PROMETHEUS_CONTENT_TYPE, text: parts.join('\n') };
      },
      health: () =>
        judgeHealth({
          startedAt,
          passRunning: runner.running,
          lastPass: runner.lastPass,
          lastSuccessAt: runner.lastSuccessSeconds === null ? null : runner.lastSuccessSeconds * 1000,
          intervalMs,
          now: Date.now(),
        }),
      report: () => readFileOrNull(path.join(config.reportDir, REPORT_JSON)),
    },
    log,
  );
  const address = await listen(server, options.listen);
  log.info({ address: formatListen(address.host, address.port), schedule: options.schedule }, 'listening');

  // The task returns at once: overlap is the runner's to judge and count, not node-cron's.
  const task = cron.schedule(
    options.schedule,
    () => {
      runner.trigger('schedule');
    },
    { name: 'agent-janitor' },
  );
  task.on('execution:missed', (context) => runner.missedTick(context.date));
  runner.trigger('start');

  let stopping: Promise<void> | null = null;
  return {
    address,
    runner,
    counters,
    stop() {
      stopping ??= (async () => {
        await task.destroy();
        await runner.idle();
        await close(server);
      })();
      return stopping;
    },
  };
}

async function carriedLastSuccess(textfile: string | undefined, log: Logger): Promise<number | null> {
  if (!textfile) return null;
  try {
    return await readLastSuccess(textfile);
  } catch (err) {
    log.warn({ err: errorMessage(err), textfile }, 'the previous metrics file could not be read');
    return null;
  }
}

function listen(server: http.Server, where: ListenAddress): Promise<{ host: string; port: number }> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) =>
      reject(new Error(`cannot listen on ${formatListen(where.host ?? '0.0.0.0', where.port)}: ${err.message}`));
    server.once('error', onError);
    server.listen(where.port, where.host, () => {
      server.off('error', onError);
      const bound = server.address() as AddressInfo;
      resolve({ host: bound.address, port: bound.port });
    });
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
