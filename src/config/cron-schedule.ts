/**
 * Why node-cron cannot run `expression`, in one line of plain words; null when it can. node-cron
 * is loaded here at the first schedule a file gives: it brings child processes and crypto, which a
 * pass that never schedules anything does not need at its start.
 */
export async function scheduleProblem(expression: string): Promise<string | null> {
  const { default: cron } = await import('node-cron');
  const check = cron.validateDetailed(expression);
  if (check.valid) return null;
  const why = check.errors.map((error) => fieldProblem(error.field, error.value ?? '', error.message)).join('; ');
  return `not a valid cron expression ${JSON.stringify(expression)}${why ? `: ${why}` : ''}`;
}

/** Each field of a schedule, as a person names it, and the values it takes. */
const FIELDS: Record<string, { name: string; takes: string }> = {
  second: { name: 'second', takes: '0-59' },
  minute: { name: 'minute', takes: '0-59' },
  hour: { name: 'hour', takes: '0-23' },
  dayOfMonth: { name: 'day of the month', takes: '1-31' },
  month: { name: 'month', takes: '1-12 or jan-dec' },
  dayOfWeek: { name: 'day of the week', takes: '0-7 or sun-sat (0 and 7 are Sunday)' },
};

const FORMS = 'a number, a list (1,15), a range (1-15) or a step (*/15)';

/** node-cron's finding about one field ("61 is a invalid expression for minute"), said plainly. */
function fieldProblem(field: string, value: string, message: string): string {
  if (field === 'expression') {
    const count = /got (\d+)/.exec(message)?.[1];
    if (count !== undefined)
      return `it has ${count} fields, but a schedule has 5 (minute, hour, day of the month, month, day of the week), or 6 with the second first`;
    return message;
  }
  const known = FIELDS[field];
  if (!known) return `${field}: ${message}`;
  if (/impossible day/.test(message))
    return `the ${known.name} field is ${value}, a day that none of the months it names has, so it would never run`;
  if (/^\d+$/.test(value)) return `the ${known.name} field is ${value}, but it takes ${known.takes}`;
  return `the ${known.name} field ${JSON.stringify(value)} is not one it takes: ${known.takes}, as ${FORMS}`;
}
