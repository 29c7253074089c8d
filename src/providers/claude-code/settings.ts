import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readStateFile } from '../../safety/fs/read.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import { isPlainObject } from '../../util/plain-object.js';
import { DEFAULT_PERIOD_DAYS, type Period } from './retention-judge.js';

/** A settings file is a few kilobytes; anything this large is not one Claude Code wrote. */
const MAX_SETTINGS_BYTES = 16 * 1024 * 1024;
const SETTING = 'cleanupPeriodDays';

/** One settings file Claude Code may read its period from, and whose it is (rule 20). */
export interface SettingsSource {
  file: string;
  basis: LocationBasis;
}

/**
 * A folder of drop-in settings files (`managed-settings.d/`): every `*.json` in it is a source.
 * Seen in the 2.1.332 binary beside `managed-settings.json`; the order and the suffix it takes are
 * unverified, and every file counts, which can only make the period longer.
 */
export interface SettingsFolder {
  folder: string;
  basis: LocationBasis;
}

/**
 * Claude Code's retention period as its own sweep would take it (the period, and where it came from): the largest `cleanupPeriodDays`
 * of all its settings sources, 30 days where none sets it. Unknowable where any source cannot be
 * read (a link to nothing, another user's file, a file that is no JSON object, a value Claude Code
 * itself rejects): Claude Code then skips its sweep, and so does the pass.
 */
export async function retentionPeriod(
  sources: readonly SettingsSource[],
  folders: readonly SettingsFolder[] = [],
): Promise<Period> {
  const problems: string[] = [];
  const listed: SettingsSource[] = [...sources];
  for (const { folder, basis } of folders) {
    const located = locate(folder, basis);
    if (located.state === 'absent') continue;
    if (located.state !== 'found') {
      problems.push(located.detail);
      continue;
    }
    try {
      for (const entry of await readdirOrEmpty(folder))
        if (entry.name.endsWith('.json')) listed.push({ file: path.join(folder, entry.name), basis });
    } catch (err) {
      problems.push(`${folder} cannot be listed: ${errorMessage(err)}`);
    }
  }
  const seen = new Set<string>();
  const read: string[] = [];
  let largest: { days: number; file: string } | null = null;
  for (const { file, basis } of listed) {
    const named = path.resolve(file);
    if (seen.has(named)) continue;
    seen.add(named);
    const value = await readPeriod(named, basis);
    if (value.state === 'absent') continue;
    if (value.state === 'problem') {
      problems.push(value.why);
      continue;
    }
    read.push(named);
    if (value.days !== null && (largest === null || value.days > largest.days))
      largest = { days: value.days, file: named };
  }
  if (problems.length > 0) return { state: 'unknowable', why: problems };
  if (largest === null)
    return {
      state: 'known',
      days: DEFAULT_PERIOD_DAYS,
      from: `Claude Code's default, as ${SETTING} is set in none of its settings${read.length > 0 ? ` (${read.join(', ')})` : ' (no settings file exists)'}`,
    };
  const others = read.length - 1;
  return {
    state: 'known',
    days: largest.days,
    from: `${SETTING} ${largest.days} in ${largest.file}${others > 0 ? `, the largest of the ${read.length} settings files read` : ''}`,
  };
}

type Read = { state: 'absent' } | { state: 'problem'; why: string } | { state: 'read'; days: number | null };

/** One source's `cleanupPeriodDays`: a whole number of days of at least 1 (as Claude Code requires), or none. */
async function readPeriod(file: string, basis: LocationBasis): Promise<Read> {
  const located = locate(file, basis, 'file');
  if (located.state === 'absent') return { state: 'absent' };
  if (located.state !== 'found') return { state: 'problem', why: `${file} cannot be read: ${located.detail}` };
  let text: string;
  try {
    const read = await readStateFile(file, MAX_SETTINGS_BYTES);
    if (!read) return { state: 'absent' };
    text = read.text;
  } catch (err) {
    return { state: 'problem', why: `${file} cannot be read: ${errorMessage(err)}` };
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (err) {
    return { state: 'problem', why: `${file} is not JSON: ${errorMessage(err)}` };
  }
  if (!isPlainObject(settings)) return { state: 'problem', why: `${file} is not a JSON object of settings` };
  const days = settings[SETTING];
  if (days === undefined) return { state: 'read', days: null };
  if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < 1)
    return {
      state: 'problem',
      why: `${SETTING} in ${file} is ${JSON.stringify(days)}, not a whole number of days of at least 1: Claude Code pauses its own cleanup until it is fixed`,
    };
  return { state: 'read', days };
}
