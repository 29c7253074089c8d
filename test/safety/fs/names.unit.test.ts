import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapedItem, escapedLogFields } from '../../../src/pass/escape.js';
import { byteLength, decodeBytes, encodeText, escapeBytes, toFsPath } from '../../../src/safety/fs/names.js';

const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('names are bytes', () => {
  it('decodes valid UTF-8 as Node does, and each other byte as its own lone surrogate', () => {
    expect(decodeBytes(Buffer.from('ünïcödé 日本 🧹 \ufffd', 'utf8'))).toBe('ünïcödé 日本 🧹 \ufffd');
    expect(decodeBytes(Buffer.from('caf\xe9', 'latin1'))).toBe('caf\udce9');
    // A truncated sequence, an overlong form, an encoded surrogate, a code point past U+10FFFF.
    expect(decodeBytes(Buffer.from([0x61, 0xe2, 0x82]))).toBe('a\udce2\udc82');
    expect(decodeBytes(Buffer.from([0xc0, 0xaf]))).toBe('\udcc0\udcaf');
    expect(decodeBytes(Buffer.from([0xed, 0xa0, 0x80]))).toBe('\udced\udca0\udc80');
    expect(decodeBytes(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe('\udcf4\udc90\udc80\udc80');
    // The byte after an invalid one starts afresh: here it begins a valid character.
    expect(decodeBytes(Buffer.from([0xff, 0xc3, 0xa9]))).toBe('\udcffé');
  });

  it('is a bijection: any bytes decode to a text that encodes back to exactly them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (raw) => {
        const bytes = Buffer.from(raw);
        const text = decodeBytes(bytes);
        expect(encodeText(text).equals(bytes)).toBe(true);
        expect(byteLength(text)).toBe(bytes.length);
        // Only bytes that are not UTF-8 make a text that is not well formed.
        expect(text.isWellFormed()).toBe(isUtf8(bytes));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(decodeBytes(Buffer.from(text, 'utf8'))).toBe(text);
      }),
    );
  });

  it('hands fs the text itself when it is plain UTF-8, else the exact bytes', () => {
    expect(toFsPath('/tmp/ünï')).toBe('/tmp/ünï');
    expect(toFsPath('/tmp/caf\udce9')).toEqual(Buffer.from('/tmp/caf\xe9', 'latin1'));
    expect(() => encodeText('a\ud800b')).toThrow(/lone surrogate that stands for no byte/);
  });

  it('writes each byte that is not UTF-8 as \\xNN for people, and leaves valid text alone', () => {
    expect(escapeBytes('/tmp/caf\udce9/\udcff\udcfe')).toBe('/tmp/caf\\xe9/\\xff\\xfe');
    expect(escapeBytes('emoji 🧹 back\\slash')).toBe('emoji 🧹 back\\slash');
    expect(escapeBytes(decodeBytes(Buffer.from([0xf0, 0x9f, 0xa7, 0xb9, 0xf0, 0x9f])))).toBe('🧹\\xf0\\x9f');
  });

  it('escapes a report item where it leaves the process: its path, its detail and the paths of its claims', () => {
    const item = escapedItem({
      provider: 'worktrees',
      kind: 'worktree',
      path: '/w/caf\udce9',
      bytes: 1,
      verdict: 'refused',
      reason: 'in-use',
      detail: 'process 7 is inside /w/caf\udce9',
      claimedBy: [{ provider: 'owl', kind: 'worktree', path: '/w/caf\udce9', verdict: 'kept', reason: 'job-open' }],
    });
    expect(item.path).toBe('/w/caf\\xe9');
    expect(item.detail).toBe('process 7 is inside /w/caf\\xe9');
    expect(item.claimedBy?.[0]?.path).toBe('/w/caf\\xe9');
    expect(escapedLogFields({ path: '/w/\udcff', paths: ['/a\udcfe'], n: 1 })).toEqual({
      path: '/w/\\xff',
      paths: ['/a\\xfe'],
      n: 1,
    });
  });
});
