import * as z from 'zod';
import { readJsonSource } from './files.js';
import { readAs } from './read-as.js';

export type SettingValue = { state: 'absent' } | { state: 'set'; value: unknown; mtimeMs: number };

const settingsFile = z.record(z.string(), z.unknown(), { error: 'not a JSON object of settings' });
/** A section that is not a mapping sets nothing in it. */
const settingsSection = z.record(z.string(), z.unknown()).catch({});

/**
 * One setting of a VS Code settings file (JSON with comments): the flat key `<section>.<key>`, as
 * VS Code writes it, or the same key nested under `<section>`. A settings file that is absent sets
 * nothing; one that cannot be read or parsed throws a SourceOfTruthError (what it sets is unknown).
 */
export async function readSetting(file: string, section: string, key: string): Promise<SettingValue> {
  const source = await readJsonSource(file, { jsonc: true });
  if (source.state === 'absent') return { state: 'absent' };
  const settings = readAs(settingsFile, source.value, file);
  const flat = settings[`${section}.${key}`];
  if (flat !== undefined) return { state: 'set', value: flat, mtimeMs: source.mtimeMs };
  const nested = settingsSection.parse(settings[section])[key];
  if (nested !== undefined) return { state: 'set', value: nested, mtimeMs: source.mtimeMs };
  return { state: 'absent' };
}
