/**
 * The pieces the config's shape is written with (src/config/schema.ts): each checks one value and
 * answers it completed, defaults filled in, or the first problem found in it. Reading the config
 * needs no validation library.
 *
 * Problems are looked for key by key in the order the shape lists them (a mapping's own keys before
 * any it does not take) and in a list item by item; the first found is the one reported, whatever
 * order the file writes its keys in. That is the order zod checked files in (the checks of the
 * tools' own files keep it too), and the messages are worded as zod words its problems (`Invalid
 * input: expected string, received number`), as they were when zod read the config.
 */
import { formatKey } from '../util/key-path.js';
import { isPlainObject } from '../util/plain-object.js';

/** Where a value sits in the config: the keys and list positions that lead to it. */
export type KeyPath = readonly (string | number)[];

/** The first thing wrong with a config: a bad value, or keys a mapping does not take. */
export type Problem = { path: KeyPath; message: string } | { path: KeyPath; unknownKeys: readonly string[] };

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/** Checks the value found at `path`. */
export type Check<T> = (value: unknown, path: KeyPath) => Checked<T>;

export const accept = <T>(value: T): Checked<T> => ({ ok: true, value });
export const refuse = (path: KeyPath, message: string): Checked<never> => ({ ok: false, problem: { path, message } });

/** What a value is, as a message names it: `null`, `array`, `object`, `NaN`, `Infinity` or its typeof. */
function kindOf(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value.constructor?.name ?? 'object';
  }
  return typeof value;
}

export const wrongType = (expected: string, value: unknown, path: KeyPath): Checked<never> =>
  refuse(path, `Invalid input: expected ${expected}, received ${kindOf(value)}`);

export const nonEmptyString: Check<string> = (value, path) => {
  if (typeof value !== 'string') return wrongType('string', value, path);
  return value === '' ? refuse(path, 'Too small: expected string to have >=1 characters') : accept(value);
};

export const boolean: Check<boolean> = (value, path) =>
  typeof value === 'boolean' ? accept(value) : wrongType('boolean', value, path);

/** A string the test accepts; `message` says what was expected. */
export function stringWhere(test: (text: string) => boolean, message: string): Check<string> {
  return (value, path) => {
    if (typeof value !== 'string') return wrongType('string', value, path);
    return test(value) ? accept(value) : refuse(path, message);
  };
}

/** One of the given strings. */
export function oneOf<const Value extends string>(values: readonly Value[]): Check<Value> {
  const listed = values.map((value) => JSON.stringify(value)).join('|');
  return (value, path) =>
    (values as readonly unknown[]).includes(value)
      ? accept(value as Value)
      : refuse(path, `Invalid option: expected one of ${listed}`);
}

/** A list whose every item passes `item`; with `nonEmpty`, at least one item. */
export function list<T>(item: Check<T>, options: { nonEmpty?: boolean } = {}): Check<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) return wrongType('array', value, path);
    const items: T[] = [];
    for (const [index, each] of value.entries()) {
      const checked = item(each, [...path, index]);
      if (!checked.ok) return checked;
      items.push(checked.value);
    }
    if (options.nonEmpty && items.length === 0) return refuse(path, 'Too small: expected array to have >=1 items');
    return accept(items);
  };
}

/** The key may be left out (a YAML `null` is not leaving it out). */
export function optional<T>(check: Check<T>): Check<T | undefined> {
  return (value, path) => (value === undefined ? accept(undefined) : check(value, path));
}

/** The key may be left out, and then has the value `fallback` makes (a fresh one each time). */
export function withDefault<T>(check: Check<T>, fallback: () => T): Check<T> {
  return (value, path) => (value === undefined ? accept(fallback()) : check(value, path));
}

/** A check for every key of T: an optional key's check must take a missing value. */
export type Shape<T> = { [Key in keyof T]-?: Check<T[Key]> };

/**
 * A mapping of exactly the keys of `shape`, each checked in the shape's order; any other key is a
 * problem. A key whose value comes out undefined is left out of the answer.
 */
export function mapping<T>(shape: Shape<T>): Check<T> {
  const keys = Object.keys(shape) as (keyof T & string)[];
  return (value, path) => {
    if (!isPlainObject(value)) return wrongType('object', value, path);
    const given = value;
    const out: Partial<T> = {};
    for (const key of keys) {
      const checked = shape[key](Object.hasOwn(given, key) ? given[key] : undefined, [...path, key]);
      if (!checked.ok) return checked;
      if (checked.value !== undefined) out[key] = checked.value;
    }
    const unknownKeys = Object.keys(given).filter((key) => !Object.hasOwn(shape, key));
    if (unknownKeys.length > 0) return { ok: false, problem: { path, unknownKeys } };
    return accept(out as T);
  };
}

/** A mapping the file may leave out, as if it wrote an empty one: then every key has its default. */
export function section<T>(shape: Shape<T>): Check<T> {
  const check = mapping(shape);
  return (value, path) => check(value === undefined ? {} : value, path);
}

/** The one line after the file's name: `<key>: <message>`, or `unknown key <key>, <key>`. */
export function describeProblem(problem: Problem): string {
  const key = formatKey(problem.path);
  if ('unknownKeys' in problem) {
    return `unknown key ${problem.unknownKeys.map((name) => (key ? `${key}.${name}` : name)).join(', ')}`;
  }
  return `${key || '(top level)'}: ${problem.message}`;
}
