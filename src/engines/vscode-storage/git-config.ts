import { errorMessage } from '../../model/errors.js';
import { IncompleteAnswer, lastLine, runGit } from '../../git/git.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readRegularFileSync } from '../../safety/fs/read.js';

/** What identifies a shadow repository: its worktree and the identity its extension gave it. */
export interface ShadowConfig {
  /** `core.worktree` as recorded, or null when unset. */
  worktree: string | null;
  userName: string | null;
  userEmail: string | null;
}

const KEYS = ['core.worktree', 'user.name', 'user.email'] as const;

/** Larger than any config an extension writes; a bigger file is git's to read. */
const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * Reads a shadow repository's config file. The plain files git writes itself are read in this
 * process (a git process costs more than the read); anything the reader does not fully understand
 * (includes, quotes, escapes, a key set twice, bytes that are not UTF-8) is asked of
 * `git config --file`, which is always right. Throws when the file cannot be read at all.
 */
export async function readShadowConfig(configFile: string): Promise<ShadowConfig> {
  const stats = await lstatOrNull(configFile);
  if (!stats) throw new Error(`${configFile} does not exist`);
  if (!stats.isFile()) throw new Error(`${configFile} is not a regular file`);
  let text: string | null = null;
  try {
    const bytes = readRegularFileSync(configFile, MAX_CONFIG_BYTES);
    if (bytes) text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = null;
  }
  const plain = text === null ? null : plainConfigValues(text);
  if (plain) return plain;
  return askGit(configFile);
}

async function askGit(configFile: string): Promise<ShadowConfig> {
  const config: ShadowConfig = { worktree: null, userName: null, userEmail: null };
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(['config', '--file', configFile, '--null', '--list']);
  } catch (err) {
    // git could not read all of it (rule 22): the caller must tell that from a config that is wrong.
    if (err instanceof IncompleteAnswer) throw err;
    throw new Error(`git config --file ${configFile}: ${errorMessage(err)}`);
  }
  if (result.code !== 0) throw new Error(`git config --file ${configFile}: ${lastLine(result.stderr)}`);
  for (const record of result.stdout.split('\0')) {
    const newline = record.indexOf('\n');
    if (newline === -1) continue;
    assign(config, record.slice(0, newline).toLowerCase(), record.slice(newline + 1));
  }
  return config;
}

function assign(config: ShadowConfig, key: string, value: string): void {
  // git answers the last value of a key set twice.
  if (key === 'core.worktree') config.worktree = value;
  else if (key === 'user.name') config.userName = value;
  else if (key === 'user.email') config.userEmail = value;
}

const BLANK_OR_COMMENT = /^[ \t]*(?:[#;].*)?$/;
const SECTION = /^[ \t]*\[([A-Za-z0-9-]+)\][ \t]*$/;
const SUBSECTION = /^[ \t]*\[([A-Za-z0-9-]+)[ \t]+"[^"\\]*"\][ \t]*$/;
const ENTRY = /^[ \t]*([A-Za-z][A-Za-z0-9-]*)[ \t]*(=.*)?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ODD_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f\ufeff]/;

/**
 * The three keys from a config file's text, for the lines git writes itself; null (ask git) for
 * anything else: an include, a key set twice, a quoted or escaped value, a value git would
 * rewrite, a control character or carriage return.
 */
export function plainConfigValues(text: string): ShadowConfig | null {
  if (ODD_CHARACTER.test(text)) return null;
  const config: ShadowConfig = { worktree: null, userName: null, userEmail: null };
  const seen = new Set<string>();
  let section: string | null = null;
  for (const line of text.split('\n')) {
    if (BLANK_OR_COMMENT.test(line)) continue;
    const plain = SECTION.exec(line);
    const header = plain ?? SUBSECTION.exec(line);
    if (header) {
      const name = (header[1] as string).toLowerCase();
      if (name === 'include' || name === 'includeif') return null;
      // `[core "x"]` is another section than `[core]`; the space keeps its name from ever matching.
      section = plain ? name : `${name} "…"`;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (!entry || section === null) return null;
    const key = `${section}.${(entry[1] as string).toLowerCase()}`;
    if (!(KEYS as readonly string[]).includes(key)) {
      if (entry[2] !== undefined && /["\\]/.test(entry[2])) return null;
      continue;
    }
    const raw = entry[2];
    if (raw === undefined || /["\\]/.test(raw) || seen.has(key)) return null;
    seen.add(key);
    const value = raw
      .slice(1)
      .replace(/^[ \t]+/, '')
      .replace(/[ \t]+$/, '');
    // git turns a tab inside a value into a space and ends the value at a comment character.
    if (/[\t#;]/.test(value)) return null;
    assign(config, key, value);
  }
  return config;
}
