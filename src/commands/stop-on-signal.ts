import type { Logger } from 'pino';
import type { PassTrail } from '../outputs/progress.js';

/** The exit status of a process ended by the signal, as a shell reports it: 128 + its number. */
const EXIT_ON = { SIGINT: 130, SIGTERM: 143 } as const;

type StopSignal = keyof typeof EXIT_ON;

/**
 * While a `run` pass is under way, SIGTERM (systemd, Kubernetes) and SIGINT (Ctrl-C) end it at
 * once, as a kill would, but not without a word: the progress line is taken away, one line says
 * how far the pass got, and the exit is 143 or 130. Whatever the pass started is finished by the
 * next one (a deletion under way stays a quarantine, rule 5). Answers the function that puts the
 * signals' default back once the pass is over.
 */
export function stopOnSignals(trail: PassTrail, log: Logger, clearLine: () => void): () => void {
  const onSignal = (signal: StopSignal): void => {
    clearLine();
    log.info(
      { signal, ...trail.position() },
      `stopped by ${signal} ${trail.howFar()}; the next pass finishes what was started`,
    );
    process.exit(EXIT_ON[signal]);
  };
  const signals = Object.keys(EXIT_ON) as StopSignal[];
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
