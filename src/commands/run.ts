import { passPlaces, rejectUnusablePlaces } from '../config/own-places.js';
import { PassBroke, reconcile } from '../reconcile/reconcile.js';
import { PassTrail, terminalProgressFor } from '../outputs/progress.js';
import { renderSummary } from '../outputs/summary.js';
import { createLogger, itemLogLevel } from './logger.js';
import { LOG_LEVEL, type RunArgs } from './options.js';
import { configFromArgs, passOptionsFrom } from './pass-config.js';
import { stopOnSignals } from './stop-on-signal.js';

/** `agent-janitor run`: one pass, its metrics (textfile, Pushgateway), then the exit code of the contract. */
export async function runCommand(args: RunArgs): Promise<number> {
  const config = await configFromArgs(args);
  await rejectUnusablePlaces(passPlaces(config, args));
  // A person at a terminal sees the pass advance on stderr; logs, stdout and pipes never do.
  const progress = terminalProgressFor(process.stderr, process.env, Boolean(args.json));
  const trail = progress ?? new PassTrail();
  const log = await createLogger(args['log-level'] ?? LOG_LEVEL.run, progress);
  const restoreSignals = stopOnSignals(trail, log, () => progress?.finish());
  let pass: Awaited<ReturnType<typeof reconcile>>;
  try {
    pass = await reconcile({
      ...passOptionsFrom(args, config, log),
      itemLogLevel: itemLogLevel(),
      progress: trail,
    });
  } catch (err) {
    throw err instanceof PassBroke ? err.cause : err;
  } finally {
    restoreSignals();
    progress?.finish();
  }
  const { report } = pass;
  process.stdout.write(
    args.json ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report, config.reportDir, pass.delivery.errors),
  );
  return pass.exitCode;
}
