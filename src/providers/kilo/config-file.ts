import { errorMessage } from '../../model/errors.js';
import { IncompleteAnswer, lastLine, runGit } from '../../git/git.js';
import { readRegularFile } from '../../safety/fs/read.js';

/**
 * A checkpoint repository's `core.worktree`, as `git config --file <gitdir>/config --get
 * core.worktree` answers it. The file is read in this process when it is one of the plain files
 * git writes itself (a git process costs more to start than the whole read); anything the reader
 * does not fully understand is asked of git, which is always right.
 */
export type RecordedWorktree =
  | { state: 'recorded'; value: string; via: ReadVia }
  | { state: 'unrecorded'; via: ReadVia }
  | { state: 'unreadable'; problem: string; via: 'git'; incomplete?: boolean };

/** Who answered: this process from the file's text, or a `git config` process. */
type ReadVia = 'file' | 'git';

/** What the text alone says; `unsure` sends the question to git. */
export type ConfigReading = { kind: 'value'; value: string } | { kind: 'absent' } | { kind: 'unsure'; why: string };

/** Larger than any config git writes for a checkpoint repository; a bigger file is git's to read. */
const MAX_CONFIG_BYTES = 64 * 1024;

export async function readRecordedWorktree(configFile: string): Promise<RecordedWorktree> {
  const text = await readPlainFile(configFile);
  const reading: ConfigReading =
    text === null ? { kind: 'unsure', why: 'not a plain readable file' } : coreWorktreeOf(text);
  if (reading.kind === 'value') return { state: 'recorded', value: reading.value, via: 'file' };
  if (reading.kind === 'absent') return { state: 'unrecorded', via: 'file' };
  return askGit(configFile);
}

async function askGit(configFile: string): Promise<RecordedWorktree> {
  try {
    // The config file itself: `git --git-dir` refuses a repository whose worktree is gone.
    const result = await runGit(['config', '--file', configFile, '--get', 'core.worktree']);
    if (result.code === 1) return { state: 'unrecorded', via: 'git' };
    if (result.code !== 0) return { state: 'unreadable', problem: lastLine(result.stderr), via: 'git' };
    return { state: 'recorded', value: result.stdout.replace(/\n$/, ''), via: 'git' };
  } catch (err) {
    return {
      state: 'unreadable',
      problem: errorMessage(err),
      via: 'git',
      ...(err instanceof IncompleteAnswer ? { incomplete: true } : {}),
    };
  }
}

/** The file's text when it is a regular file (never through a link, never a FIFO), small, and UTF-8. */
function readPlainFile(file: string): Promise<string | null> {
  return readRegularFile(file, async (handle, stats) => {
    if (stats.size > MAX_CONFIG_BYTES) return null;
    const bytes = await handle.readFile();
    if (bytes.length > MAX_CONFIG_BYTES) return null;
    // A byte sequence that is not UTF-8 is not decoded with replacements: git is asked instead.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  });
}

// Control characters other than tab and newline: a carriage return (git reads CRLF files its own
// way), NUL, form feed and the like.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ODD_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f\ufeff]/;
const BLANK_OR_COMMENT = /^[ \t]*(?:[#;].*)?$/;
const SECTION = /^[ \t]*\[([A-Za-z0-9-]+)\][ \t]*$/;
const SUBSECTION = /^[ \t]*\[([A-Za-z0-9-]+)[ \t]+"[^"\\]*"\][ \t]*$/;
const ENTRY = /^[ \t]*([A-Za-z][A-Za-z0-9-]*)[ \t]*(=.*)?$/;

/**
 * `core.worktree` from a config file's text, for the lines git writes itself: `[section]` and
 * `[section "sub"]` headers, `key = value` entries without quotes, escapes or continuations, and
 * comment lines. Anything else (an include, a key set twice, a quoted or escaped value, CRLF line
 * ends, a header with more on its line) answers `unsure`, never a guess.
 */
export function coreWorktreeOf(text: string): ConfigReading {
  if (ODD_CHARACTER.test(text))
    return { kind: 'unsure', why: 'a control character, carriage return or byte-order mark' };
  let section: string | null = null;
  let found: string | null = null;
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1}`;
    if (BLANK_OR_COMMENT.test(line)) continue;
    const plain = SECTION.exec(line);
    const header = plain ?? SUBSECTION.exec(line);
    if (header) {
      const name = (header[1] as string).toLowerCase();
      if (name === 'include' || name === 'includeif') return { kind: 'unsure', why: `${where}: an include` };
      // `[core "x"]` is another section than `[core]`; the space keeps its name from ever being `core`.
      section = plain ? name : `${name} "…"`;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (!entry || section === null) return { kind: 'unsure', why: `${where}: not a plain header, entry or comment` };
    const value = entry[2];
    // Quotes and backslashes can join lines or hide a comment character: git reads those.
    if (value !== undefined && /["\\]/.test(value))
      return { kind: 'unsure', why: `${where}: a quoted or escaped value` };
    if (section !== 'core' || (entry[1] as string).toLowerCase() !== 'worktree') continue;
    if (found !== null) return { kind: 'unsure', why: `${where}: core.worktree set twice` };
    if (value === undefined) return { kind: 'unsure', why: `${where}: core.worktree without a value` };
    const recorded = value
      .slice(1)
      .replace(/^[ \t]+/, '')
      .replace(/[ \t]+$/, '');
    // git turns a tab inside a value into a space and ends the value at a comment character.
    if (recorded === '' || /[\t#;]/.test(recorded))
      return { kind: 'unsure', why: `${where}: a core.worktree git would rewrite` };
    found = recorded;
  }
  return found === null ? { kind: 'absent' } : { kind: 'value', value: found };
}
