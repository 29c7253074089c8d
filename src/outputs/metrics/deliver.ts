import os from 'node:os';
import type { Logger } from 'pino';
import type { EffectiveConfig } from '../../config/schema.js';
import { errorMessage } from '../../model/errors.js';
import type { PassOutcome } from './outcome.js';
import { pushMetrics } from './pushgateway.js';

// prom-client and the outputs are imported only when a pass has metrics to deliver: a `run` with
// no textfile and no Pushgateway configured never loads them.
const loadRenderer = () => import('./last-pass.js');
const loadTextfile = () => import('./textfile.js');

export interface Delivery {
  /** The pass exited 0 and every configured output was delivered: the exit code is 0. */
  succeeded: boolean;
  /** What could not be delivered, one sentence each (already logged). */
  errors: string[];
}

/**
 * Hands a pass's gauges to the configured outputs: the Pushgateway first, then the textfile, so
 * that the textfile's last-success time means exactly "the last pass that exited 0" (a push that
 * failed makes the exit 1). A failed pass's push leaves the last-success gauge out, and its
 * textfile carries over the previous file's value. An output that fails is logged and makes the
 * exit 1; it never stops the other output, and the report is already written by then.
 */
export async function deliverMetrics(config: EffectiveConfig, outcome: PassOutcome, log: Logger): Promise<Delivery> {
  const passSeconds = outcome.finishedAt.getTime() / 1000;
  const errors: string[] = [];

  const gateway = config.metrics.pushgateway;
  if (gateway) {
    try {
      const { renderLastPass, LAST_PASS_CONTENT_TYPE } = await loadRenderer();
      const text = await renderLastPass(outcome, outcome.exitCode === 0 ? passSeconds : null);
      await pushMetrics(gateway, outcome.report?.host ?? os.hostname(), text, LAST_PASS_CONTENT_TYPE);
      log.debug({ pushgateway: gateway.url, job: gateway.job }, 'metrics pushed');
    } catch (err) {
      errors.push(errorMessage(err));
      log.error({ err: errorMessage(err), pushgateway: gateway.url }, 'the metrics push failed');
    }
  }

  const succeeded = outcome.exitCode === 0 && errors.length === 0;
  const textfile = config.metrics.textfile;
  if (textfile) {
    try {
      const [{ renderLastPass }, { writeTextfile }] = await Promise.all([loadRenderer(), loadTextfile()]);
      const lastSuccess = succeeded ? passSeconds : await previousLastSuccess(textfile, log);
      await writeTextfile(textfile, await renderLastPass(outcome, lastSuccess));
      log.debug({ textfile }, 'metrics textfile written');
    } catch (err) {
      const message = `cannot write the metrics file ${textfile}: ${errorMessage(err)}`;
      errors.push(message);
      log.error({ err: errorMessage(err), textfile }, 'the metrics textfile could not be written');
    }
  }
  return { succeeded: outcome.exitCode === 0 && errors.length === 0, errors };
}

/** An unreadable previous file loses only the carried-over time, never this pass's figures. */
async function previousLastSuccess(textfile: string, log: Logger): Promise<number | null> {
  try {
    const { readLastSuccess } = await loadTextfile();
    return await readLastSuccess(textfile);
  } catch (err) {
    log.warn(
      { err: errorMessage(err), textfile },
      'the previous metrics file could not be read; the last success time starts over',
    );
    return null;
  }
}
