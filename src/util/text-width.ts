/**
 * The columns a line of text takes in a terminal, for laying out help text: code points, without
 * ANSI escape sequences, each East Asian wide or fullwidth one as two, combining marks as none.
 * The bundled CLI uses it in place of a width library whose Unicode tables cost every start-up
 * tens of milliseconds to load, for help text that is ASCII.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with ESC.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
const COMBINING = /\p{Mark}|\u200b|\u200c|\u200d|\ufeff/u;
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

export default function textWidth(text: string): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  let width = 0;
  for (const char of text.replace(ANSI, '')) {
    const code = char.codePointAt(0) as number;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0) || COMBINING.test(char)) continue;
    width += WIDE.test(char) ? 2 : 1;
  }
  return width;
}
