import path from 'node:path';
import type { Provider } from '../../provider-api/provider.js';

/**
 * Where a set's root starts. Besides absolute paths and `~/` (once per home), a root may start with
 * an anchor, `{name}`: a place of a tool's that the provider of that tool names (its `anchors`),
 * such as `{codex-home}`, `{claude-projects}` (the repository of every project in Claude Code's
 * `.claude.json`), `{kilo-data}` or `{kilo-projects}` (the repository of every project row in Kilo
 * Code's databases).
 */
export type RootStart =
  | { kind: 'home'; rest: string }
  | { kind: 'anchor'; anchor: string; rest: string }
  | { kind: 'absolute'; pattern: string };

/** The names of every anchor the registered providers give, in the registry's order. */
export const anchorNames = (registry: readonly Provider[]): string[] =>
  registry.flatMap((provider) => (provider.anchors ?? []).map((anchor) => anchor.name));

const ANCHORED = /^\{([a-z-]+)\}(?:\/(.*))?$/;

/** Reads a root of the config, or says in words why it is none; `anchors` are the names known. */
export function parseRoot(root: string, anchors: readonly string[]): RootStart | { kind: 'invalid'; why: string } {
  if (root === '~' || root.startsWith('~/')) {
    const rest = trimRest(root.slice(1));
    return climbs(rest) ? CLIMBS : { kind: 'home', rest };
  }
  const anchored = ANCHORED.exec(root);
  if (anchored) {
    const name = anchored[1] as string;
    if (!anchors.includes(name))
      return { kind: 'invalid', why: `unknown anchor {${name}} (known: ${anchors.map((a) => `{${a}}`).join(', ')})` };
    const rest = trimRest(anchored[2] ?? '');
    return climbs(rest) ? CLIMBS : { kind: 'anchor', anchor: name, rest };
  }
  if (root.startsWith('{')) return { kind: 'invalid', why: 'an anchor is written {name} and followed by / or nothing' };
  if (!path.isAbsolute(root))
    return { kind: 'invalid', why: 'a root is an absolute path, or starts with ~/ or an anchor' };
  return { kind: 'absolute', pattern: path.resolve(root) };
}

const CLIMBS = { kind: 'invalid', why: 'a root may not climb out of its home or anchor with ..' } as const;

const climbs = (rest: string): boolean => rest.split('/').includes('..');

function trimRest(rest: string): string {
  return rest.replace(/^\/+|\/+$/g, '');
}
