import { UsageError } from '../model/errors.js';

// How a value that yargs has read becomes the one a command gets. yargs collects an option given
// twice into a list and reads `--no-NAME` as false for any option; these keep the last value of a
// one-value option, every value of a repeatable one, and refuse an empty or negated value.

/** The strings an option was given, in order; `written` is how help shows it (`--config FILE`). */
function valuesOf(written: string, given: unknown): string[] {
  const name = written.split(' ')[0] as string;
  return [given].flat().map((value) => {
    if (typeof value !== 'string')
      throw new UsageError(`--no-${name.slice(2)}: ${name} is not a flag; give ${written}`);
    if (value === '') throw new UsageError(`${name} needs a value: ${written}`);
    return value;
  });
}

/** One value; given twice, the last one wins. */
export const lastOf =
  (written: string) =>
  (given: unknown): string =>
    valuesOf(written, given).at(-1) as string;

/** Repeatable: every value, in the order given. */
export const everyOf =
  (written: string) =>
  (given: unknown): string[] =>
    valuesOf(written, given);

/** Repeatable and comma-separated. */
export const listOf =
  (written: string) =>
  (given: unknown): string[] =>
    valuesOf(written, given)
      .flatMap((value) => value.split(','))
      .map((part) => part.trim())
      .filter(Boolean);

/** One of `choices`; given twice, the last one wins. */
export const choiceOf =
  <C extends string>(written: string, choices: readonly C[]) =>
  (given: unknown): C => {
    const value = lastOf(written)(given);
    if (!(choices as readonly string[]).includes(value))
      throw new UsageError(`${written.split(' ')[0]}: ${JSON.stringify(value)} is not one of ${choices.join(', ')}`);
    return value as C;
  };
