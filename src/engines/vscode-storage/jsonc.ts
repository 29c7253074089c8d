/**
 * VS Code's settings files are JSON with comments (`//`, `/* *\/`) and trailing commas. This turns
 * such a text into plain JSON by dropping exactly those, leaving strings untouched, and parses it.
 * Anything else that is not JSON still fails, as it should: a settings file that VS Code itself
 * could not read proves nothing.
 */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text));
}

function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  // A comma is held back until the next meaningful character shows it is not a trailing one.
  let pendingComma = false;
  const flushComma = () => {
    if (pendingComma) out += ',';
    pendingComma = false;
  };
  while (i < text.length) {
    const ch = text[i] as string;
    const next = text[i + 1];
    if (ch === '"') {
      flushComma();
      const end = endOfString(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) throw new SyntaxError('an unterminated /* comment');
      i = end + 2;
      out += ' ';
      continue;
    }
    if (ch === ',') {
      flushComma();
      pendingComma = true;
      i += 1;
      continue;
    }
    if (ch === '}' || ch === ']') {
      pendingComma = false;
      out += ch;
      i += 1;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      out += ch;
      i += 1;
      continue;
    }
    flushComma();
    out += ch;
    i += 1;
  }
  flushComma();
  return out;
}

/** The index just past the string that starts at `start` (a `"`), escapes included. */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === '"') return i + 1;
    i += 1;
  }
  throw new SyntaxError('an unterminated string');
}
