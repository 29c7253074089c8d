import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { readStateFile } from '../../safety/fs/read.js';
import { locate } from '../../safety/owners/locations.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import type { SettingsLayer } from './retention.js';

// Gemini CLI's settings files, read as packages/cli/src/config/settings.ts (0.61.0) reads them:
// JSON with comments, one object each.

/** Where the system settings are when nothing names them (`getSystemSettingsPath` on Linux). */
const SYSTEM_SETTINGS = '/etc/gemini-cli/settings.json';
/** `GEMINI_CLI_SYSTEM_SETTINGS_PATH`, `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`: what move them. */
export const SYSTEM_SETTINGS_VARIABLE = 'GEMINI_CLI_SYSTEM_SETTINGS_PATH';
export const SYSTEM_DEFAULTS_VARIABLE = 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH';

const SETTINGS_MAX_BYTES = 4 * 1024 * 1024;

/** Where a Gemini CLI with these variables reads its system settings and its system defaults. */
export function systemPaths(vars: Readonly<Record<string, string | undefined>>): {
  settings: string;
  defaults: string;
} {
  const settings = vars[SYSTEM_SETTINGS_VARIABLE] || SYSTEM_SETTINGS;
  const defaults = vars[SYSTEM_DEFAULTS_VARIABLE] || path.join(path.dirname(settings), 'system-defaults.json');
  return { settings, defaults };
}

/** A settings file: its layer, none where it does not exist, or why it cannot be read. */
export type ReadSettings = { layer: SettingsLayer } | { absent: true } | { problem: string };

/**
 * One settings file, never through a link to another user's files (rule 20). One that is not
 * there is no layer; one that cannot be read, is no JSON, or is not one object stops Gemini CLI
 * itself ("Please fix the configuration file(s)"), and is a problem here.
 */
export async function readSettings(file: string, basis: LocationBasis): Promise<ReadSettings> {
  const found = locate(file, basis, 'file');
  if (found.state === 'absent') return { absent: true };
  if (found.state !== 'found') return { problem: found.detail };
  try {
    const read = await readStateFile(file, SETTINGS_MAX_BYTES);
    if (read === null) return { absent: true };
    const parsed: unknown = JSON.parse(withoutComments(read.text));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return { problem: `${file} is not one JSON object` };
    return { layer: { file, general: (parsed as Record<string, unknown>).general } };
  } catch (err) {
    return { problem: `${file} cannot be read: ${errorMessage(err)}` };
  }
}

/** JSON with `//` and `/* … *\/` comments outside strings blanked, as strip-json-comments does. */
export function withoutComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    const next = text[i + 1];
    if (inString) {
      out += char;
      if (char === '\\') {
        out += next ?? '';
        i += 1;
      } else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end - 1;
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else out += char;
  }
  return out;
}
