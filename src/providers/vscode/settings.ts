import { SourceOfTruthError } from '../../core/errors.js';
import { isPlainObject } from '../../util/plain-object.js';
import { readJsonSource } from './files.js';

export type SettingValue = { state: 'absent' } | { state: 'set'; value: unknown; mtimeMs: number };

/**
 * One setting of a VS Code settings file (JSON with comments): the flat key `<section>.<key>`, as
 * VS Code writes it, or the same key nested under `<section>`. A settings file that is absent sets
 * nothing; one that cannot be read or parsed throws a SourceOfTruthError (what it sets is unknown).
 */
export async function readSetting(file: string, section: string, key: string): Promise<SettingValue> {
  const source = await readJsonSource(file, { jsonc: true });
  if (source.state === 'absent') return { state: 'absent' };
  if (!isPlainObject(source.value)) throw new SourceOfTruthError(`${file}: not a JSON object of settings`);
  const flat = source.value[`${section}.${key}`];
  if (flat !== undefined) return { state: 'set', value: flat, mtimeMs: source.mtimeMs };
  const nested = source.value[section];
  if (isPlainObject(nested) && nested[key] !== undefined)
    return { state: 'set', value: nested[key], mtimeMs: source.mtimeMs };
  return { state: 'absent' };
}
