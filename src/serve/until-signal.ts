import { startServe, type ServeOptions } from './serve.js';

/**
 * Serves until the first SIGTERM or SIGINT, then stops the schedule, finishes the pass under way and
 * returns. Later signals are logged and ignored until the process exits: the pass under way still
 * finishes, a second copy of the stop signal (a container without a PID namespace of its own gets
 * one from its runtime and one from tini) cannot end it with 143 after that, and whoever cannot
 * wait sends SIGKILL (the next pass completes whatever a killed one left, rule 5).
 */
export async function serveUntilSignal(options: ServeOptions): Promise<void> {
  const { log } = options.pass;
  let received: NodeJS.Signals | null = null;
  let wake: (signal: NodeJS.Signals) => void = () => undefined;
  const signalled = new Promise<NodeJS.Signals>((resolve) => (wake = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      log.warn({ signal }, 'already stopping; the pass under way is being finished');
      return;
    }
    received = signal;
    wake(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let serve: Awaited<ReturnType<typeof startServe>>;
  try {
    serve = await startServe(options);
  } catch (err) {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    throw err;
  }
  const signal = await signalled;
  log.info({ signal, passRunning: serve.runner.running }, 'stopping: finishing the pass under way');
  await serve.stop();
  log.info('stopped');
}
