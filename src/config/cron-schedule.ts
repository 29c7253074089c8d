/**
 * Why node-cron cannot run `expression`, in one line; null when it can. node-cron is loaded here
 * at the first schedule a file gives: it brings child processes and crypto, which a pass that
 * never schedules anything does not need at its start.
 */
export async function scheduleProblem(expression: string): Promise<string | null> {
  const { default: cron } = await import('node-cron');
  const check = cron.validateDetailed(expression);
  if (check.valid) return null;
  const why = check.errors.map((error) => `${error.field}: ${error.message}`).join('; ');
  return `not a valid cron expression ${JSON.stringify(expression)}${why ? ` (${why})` : ''}`;
}
