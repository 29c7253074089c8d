/**
 * File names are bytes; JavaScript strings are UTF-16. A name that is valid UTF-8 is its decoded
 * text. A byte that is not part of a valid UTF-8 sequence becomes a lone surrogate U+DC80..U+DCFF
 * (the byte plus 0xDC00: "surrogateescape", as Python does it). A valid UTF-8 decoding never yields
 * a lone surrogate, so every byte string has exactly one text and back: path.join, path.relative
 * and the judges keep working on strings, and src/safety/fs/ hands the exact bytes to the kernel.
 */

const REPLACEMENT = '\ufffd';
const ESCAPE_BASE = 0xdc00;

/** The text of a name's bytes: their UTF-8 decoding, each undecodable byte as its lone surrogate. */
export function decodeBytes(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  // The native decoder marks every undecodable byte with U+FFFD; without one it was exact.
  return text.includes(REPLACEMENT) ? decodeStrictly(bytes) : text;
}

/** The text of a name Node has decoded, when it may have lost bytes (a U+FFFD) and they can be read again. */
export function mayHaveLostBytes(text: string): boolean {
  return text.includes(REPLACEMENT);
}

function decodeStrictly(bytes: Buffer): string {
  const units: number[] = [];
  let k = 0;
  while (k < bytes.length) {
    const first = bytes[k] as number;
    const length = sequenceLength(bytes, k);
    if (length === 0) {
      units.push(first < 0x80 ? first : ESCAPE_BASE + first);
      k += 1;
      continue;
    }
    let point = length === 2 ? first & 0x1f : length === 3 ? first & 0x0f : first & 0x07;
    for (let m = 1; m < length; m += 1) point = (point << 6) | ((bytes[k + m] as number) & 0x3f);
    if (point >= 0x10000) {
      point -= 0x10000;
      units.push(0xd800 + (point >> 10), 0xdc00 + (point & 0x3ff));
    } else units.push(point);
    k += length;
  }
  let text = '';
  for (let start = 0; start < units.length; start += 8192)
    text += String.fromCharCode(...units.slice(start, start + 8192));
  return text;
}

/** The length of the valid multi-byte UTF-8 sequence at `k` (no overlong form, no surrogate, at most U+10FFFF), else 0. */
function sequenceLength(bytes: Buffer, k: number): number {
  const first = bytes[k] as number;
  if (first < 0x80) return 0;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) length = 2;
  else if (first >= 0xe0 && first <= 0xef) {
    length = 3;
    if (first === 0xe0) low = 0xa0;
    if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    length = 4;
    if (first === 0xf0) low = 0x90;
    if (first === 0xf4) high = 0x8f;
  } else return 0;
  if (k + length > bytes.length) return 0;
  const second = bytes[k + 1] as number;
  if (second < low || second > high) return 0;
  for (let m = 2; m < length; m += 1) {
    const next = bytes[k + m] as number;
    if (next < 0x80 || next > 0xbf) return 0;
  }
  return length;
}

/** The bytes a text stands for: the inverse of decodeBytes. */
export function encodeText(text: string): Buffer {
  if (text.isWellFormed()) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let run = '';
  for (const point of text) {
    const unit = point.charCodeAt(0);
    if (point.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      if (unit < ESCAPE_BASE + 0x80 || unit > ESCAPE_BASE + 0xff)
        throw new Error(`${escapeBytes(text)} holds a lone surrogate that stands for no byte`);
      if (run !== '') parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.of(unit - ESCAPE_BASE));
    } else run += point;
  }
  if (run !== '') parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

/** What to hand a file-system call: the text itself when it is plain UTF-8 (the fast path), else its bytes. */
export function toFsPath(text: string): string | Buffer {
  return text.isWellFormed() ? text : encodeText(text);
}

/** The length of a name in bytes, as the file system counts it. */
export function byteLength(text: string): number {
  return text.isWellFormed() ? Buffer.byteLength(text, 'utf8') : encodeText(text).length;
}

/**
 * A name for people and for JSON: each byte that is not UTF-8 written as `\xNN`; valid text,
 * backslashes included, is left as it is.
 */
export function escapeBytes(text: string): string {
  if (text.isWellFormed()) return text;
  return text.replace(/\p{Surrogate}/gu, (unit) => {
    const code = unit.charCodeAt(0);
    return code >= ESCAPE_BASE + 0x80 && code <= ESCAPE_BASE + 0xff
      ? `\\x${(code - ESCAPE_BASE).toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16)}`;
  });
}
