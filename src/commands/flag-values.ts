import type { Options } from 'yargs';
import { UsageError } from '../model/errors.js';

/**
 * yargs reads `--flag=VALUE` as false for any VALUE but `true`, so `--report-only=yes` would run
 * a pass that deletes. A flag's value written in the argument itself must be true or false.
 */
export function refuseFlagValues(argv: readonly string[], table: Readonly<Record<string, Options>>): true {
  const flags = new Set(
    Object.entries(table)
      .filter(([, option]) => option.type === 'boolean')
      .flatMap(([name, option]) => [name, ...[option.alias ?? []].flat()]),
  );
  const end = argv.indexOf('--');
  for (const arg of end < 0 ? argv : argv.slice(0, end)) {
    const written = /^--([^=]+)=(.*)$/s.exec(arg);
    if (!written || !flags.has(written[1] as string)) continue;
    const value = written[2] as string;
    if (value !== 'true' && value !== 'false')
      throw new UsageError(`--${written[1]} takes true or false, got ${JSON.stringify(value)}`);
  }
  return true;
}
