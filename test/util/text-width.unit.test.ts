import { describe, expect, it } from 'vitest';
import textWidth from '../../src/util/text-width.js';

// The bundled CLI lays out its help text with this in place of string-width (scripts/bundle.mjs).
describe('textWidth', () => {
  it('counts the columns of ASCII, wide and combined characters, without escape sequences', () => {
    expect(textWidth('')).toBe(0);
    expect(textWidth('--report-only')).toBe(13);
    expect(textWidth('日本語')).toBe(6);
    expect(textWidth('\u001b[31mred\u001b[39m')).toBe(3);
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('😀 ok')).toBe(5);
    expect(textWidth('a\tb\u0007')).toBe(2);
  });
});
