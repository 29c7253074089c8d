// A repository's config file read from its text, for the lines git writes itself: pure, so a
// judge may use it. What it does not fully understand is git's to read (config-file.ts).

/** What the text alone says of some keys: their values (a key left out is unset), or why to ask git. */
export type ConfigText = { kind: 'values'; values: Map<string, string> } | { kind: 'unsure'; why: string };

// Control characters other than tab and newline: a carriage return (git reads CRLF files its own
// way), NUL, form feed and the like.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ODD_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f\ufeff]/;
const BLANK_OR_COMMENT = /^[ \t]*(?:[#;].*)?$/;
const SECTION = /^[ \t]*\[([A-Za-z0-9-]+)\][ \t]*$/;
const SUBSECTION = /^[ \t]*\[([A-Za-z0-9-]+)[ \t]+"[^"\\]*"\][ \t]*$/;
const ENTRY = /^[ \t]*([A-Za-z][A-Za-z0-9-]*)[ \t]*(=.*)?$/;

/**
 * The values of `keys` (lowercase `section.name`, no subsection) in a config file's text: `[section]`
 * and `[section "sub"]` headers, `key = value` entries without quotes, escapes or continuations,
 * and comment lines. Anything else (an include, one of the keys set twice or without a value, a
 * quoted or escaped value, a value git would rewrite, CRLF line ends) answers `unsure`, never a guess.
 */
export function plainConfigValues(text: string, keys: readonly string[]): ConfigText {
  if (ODD_CHARACTER.test(text))
    return { kind: 'unsure', why: 'a control character, carriage return or byte-order mark' };
  const values = new Map<string, string>();
  let section: string | null = null;
  for (const [index, line] of text.split('\n').entries()) {
    const where = `line ${index + 1}`;
    if (BLANK_OR_COMMENT.test(line)) continue;
    const plain = SECTION.exec(line);
    const header = plain ?? SUBSECTION.exec(line);
    if (header) {
      const name = (header[1] as string).toLowerCase();
      if (name === 'include' || name === 'includeif') return { kind: 'unsure', why: `${where}: an include` };
      // `[core "x"]` is another section than `[core]`; the space keeps its name from ever matching.
      section = plain ? name : `${name} "…"`;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (!entry || section === null) return { kind: 'unsure', why: `${where}: not a plain header, entry or comment` };
    const raw = entry[2];
    // Quotes and backslashes can join lines or hide a comment character: git reads those.
    if (raw !== undefined && /["\\]/.test(raw)) return { kind: 'unsure', why: `${where}: a quoted or escaped value` };
    const key = `${section}.${(entry[1] as string).toLowerCase()}`;
    if (!keys.includes(key)) continue;
    if (values.has(key)) return { kind: 'unsure', why: `${where}: ${key} set twice` };
    if (raw === undefined) return { kind: 'unsure', why: `${where}: ${key} without a value` };
    const value = raw
      .slice(1)
      .replace(/^[ \t]+/, '')
      .replace(/[ \t]+$/, '');
    // git turns a tab inside a value into a space and ends the value at a comment character.
    if (value === '' || /[\t#;]/.test(value)) return { kind: 'unsure', why: `${where}: a ${key} git would rewrite` };
    values.set(key, value);
  }
  return { kind: 'values', values };
}
