import cron from 'node-cron';
import { scheduleProblem } from '../config/cron-schedule.js';
import { UsageError } from '../model/errors.js';

/** Rejects a schedule node-cron cannot run, naming the key or option it came from. */
export async function validateSchedule(expression: string, where: string): Promise<void> {
  const problem = await scheduleProblem(expression);
  if (problem) throw new UsageError(`${where}: ${problem}`);
}

const RUNS_LOOKED_AT = 16;

/**
 * The schedule's interval, for the health check: the longest gap between the next few runs, so an
 * irregular schedule (weekdays at 03:00) is judged by its longest wait (the weekend), not its shortest.
 */
export function scheduleIntervalMs(expression: string): number {
  const task = cron.createTask(expression, () => undefined);
  try {
    const runs = task.getNextRuns(RUNS_LOOKED_AT).map((run) => run.getTime());
    let longest = 0;
    for (let i = 1; i < runs.length; i += 1) longest = Math.max(longest, (runs[i] as number) - (runs[i - 1] as number));
    return Math.max(longest, 1000);
  } finally {
    void task.destroy();
  }
}
