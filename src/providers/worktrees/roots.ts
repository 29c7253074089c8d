import path from 'node:path';

/**
 * Where a set's root starts. Besides absolute paths and `~/` (once per home), a root may start with
 * an anchor that stands for folders only a tool's own state can name:
 * - `{codex-home}`: `$CODEX_HOME` for the current user's own home, else `<home>/.codex`;
 * - `{claude-projects}`: the repository of every project in Claude Code's `.claude.json`;
 * - `{opencode-data}`, `{kilo-data}`: opencode's and Kilo Code's data folders (as the kilo provider finds them);
 * - `{kilo-projects}`: the repository of every project row in Kilo Code's databases.
 */
const ANCHORS = ['codex-home', 'claude-projects', 'opencode-data', 'kilo-data', 'kilo-projects'] as const;
type Anchor = (typeof ANCHORS)[number];

export type RootStart =
  | { kind: 'home'; rest: string }
  | { kind: 'anchor'; anchor: Anchor; rest: string }
  | { kind: 'absolute'; pattern: string };

const ANCHORED = /^\{([a-z-]+)\}(?:\/(.*))?$/;

/** Reads a root of the config, or says in words why it is none. */
export function parseRoot(root: string): RootStart | { kind: 'invalid'; why: string } {
  if (root === '~' || root.startsWith('~/')) {
    const rest = trimRest(root.slice(1));
    return climbs(rest) ? CLIMBS : { kind: 'home', rest };
  }
  const anchored = ANCHORED.exec(root);
  if (anchored) {
    const name = anchored[1] as string;
    if (!(ANCHORS as readonly string[]).includes(name))
      return { kind: 'invalid', why: `unknown anchor {${name}} (known: ${ANCHORS.map((a) => `{${a}}`).join(', ')})` };
    const rest = trimRest(anchored[2] ?? '');
    return climbs(rest) ? CLIMBS : { kind: 'anchor', anchor: name as Anchor, rest };
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
