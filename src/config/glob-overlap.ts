import path from 'node:path';

/**
 * Whether some path matching glob `a` lies inside, or is, some path matching glob `b`, or the other
 * way round (`*`, `?` and `[...]` within one component, as in `homes`). Used to refuse configs
 * whose roots two judges would share; it answers yes when in doubt.
 */
export function patternsOverlap(a: string, b: string): boolean {
  const left = components(a);
  const right = components(b);
  const shared = Math.min(left.length, right.length);
  for (let i = 0; i < shared; i += 1) if (!componentsMeet(left[i] as string, right[i] as string)) return false;
  return true;
}

/** Whether a path is the folder or inside it, by canonical path text (no glob, no link followed). */
export function pathsOverlap(a: string, b: string): boolean {
  return isInside(a, b) || isInside(b, a);
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(path.resolve(parent), path.resolve(child));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * A config's overlap check compares every root with every other and with every claimed folder:
 * an absolute pattern's components are kept (a relative one depends on the working directory, which
 * a pass moves). Bounded, since a pass may ask about many folders.
 */
const absoluteComponents = new Map<string, readonly string[]>();
const KEPT_PATTERNS = 1024;

function components(pattern: string): readonly string[] {
  const kept = absoluteComponents.get(pattern);
  if (kept) return kept;
  const parts = path
    .resolve(pattern)
    .split(path.sep)
    .filter((part) => part !== '');
  if (path.isAbsolute(pattern)) {
    if (absoluteComponents.size >= KEPT_PATTERNS) absoluteComponents.clear();
    absoluteComponents.set(pattern, parts);
  }
  return parts;
}

type Token = { star: true } | { star: false; matches: (char: string) => boolean };

const hasMagic = (part: string): boolean => /[*?[]/.test(part);

/** Whether two one-component globs can match the same name (their automata's product accepts). */
function componentsMeet(a: string, b: string): boolean {
  if (!hasMagic(a) && !hasMagic(b)) return a === b;
  // A name meets a glob when the glob matches it: no product of automata needed.
  if (!hasMagic(b)) return globMatches(tokens(a), b);
  if (!hasMagic(a)) return globMatches(tokens(b), a);
  const left = tokens(a);
  const right = tokens(b);
  const alphabet = candidateChars(a, b);
  const seen = new Set<string>();
  const queue: Array<[number, number]> = [[0, 0]];
  while (queue.length > 0) {
    const [i, j] = queue.pop() as [number, number];
    const id = `${i},${j}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (i === left.length && j === right.length) return true;
    const x = left[i];
    const y = right[j];
    if (x?.star) queue.push([i + 1, j]);
    if (y?.star) queue.push([i, j + 1]);
    if (!x || !y || (x.star && y.star)) continue;
    // One name character, read by both: a star stays, any other token moves on.
    if (alphabet.some((char) => accepts(x, char) && accepts(y, char)))
      queue.push([x.star ? i : i + 1, y.star ? j : j + 1]);
  }
  return false;
}

const accepts = (token: Token, char: string): boolean => token.star || token.matches(char);

/** Whether the glob's tokens match the whole of `name` (the states reachable after each character). */
function globMatches(glob: readonly Token[], name: string): boolean {
  let states = closure(glob, new Set([0]));
  for (const char of name) {
    const next = new Set<number>();
    for (const at of states) {
      const token = glob[at];
      if (token && accepts(token, char)) next.add(token.star ? at : at + 1);
    }
    states = closure(glob, next);
    if (states.size === 0) return false;
  }
  return states.has(glob.length);
}

/** The states, and every state a run of stars lets a match skip to without reading a character. */
function closure(glob: readonly Token[], states: Set<number>): Set<number> {
  for (const at of states) if (glob[at]?.star) states.add(at + 1);
  return states;
}

function tokens(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === '*') out.push({ star: true });
    else if (char === '?') out.push({ star: false, matches: () => true });
    else if (char === '[' && glob.indexOf(']', i + 1) !== -1) {
      const end = glob.indexOf(']', i + 1);
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      const regex = new RegExp(`^[${body}]$`, 'u');
      out.push({ star: false, matches: (c) => regex.test(c) });
      i = end;
    } else out.push({ star: false, matches: (c) => c === char });
  }
  return out;
}

/** Printable ASCII, every character either glob names, and one beyond ASCII: enough to decide. */
function candidateChars(a: string, b: string): string[] {
  const chars = new Set<string>([...a, ...b, 'é']);
  for (let code = 0x20; code < 0x7f; code += 1) chars.add(String.fromCharCode(code));
  chars.delete('/');
  return [...chars];
}
