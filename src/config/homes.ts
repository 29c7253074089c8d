import path from 'node:path';
import { lstatOrNull } from '../safety/fs/stat.js';
import { readdirOrEmpty } from '../safety/fs/list.js';

/** Expands `homes` patterns (`*`, `?`, `[abc]` within one path component) into existing folders. */
export async function expandHomes(patterns: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of patterns) {
    for (const match of await expandPattern(path.resolve(pattern))) found.add(match);
  }
  return [...found];
}

/**
 * The patterns of `homes` that name no existing folder: a home that does not exist (a typo, an
 * unmounted disk) is no error, but a pass over it finds nothing, and a person should be told.
 */
export async function unmatchedHomes(patterns: readonly string[]): Promise<string[]> {
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const found = await expandPattern(path.resolve(pattern));
    const real = [];
    for (const folder of found) if ((await lstatOrNull(folder))?.isDirectory()) real.push(folder);
    if (real.length === 0) unmatched.push(path.resolve(pattern));
  }
  return unmatched;
}

async function expandPattern(pattern: string): Promise<string[]> {
  return expandUnder(path.sep, pattern);
}

/**
 * The existing real folders that `pattern` (relative, `*` `?` `[..]` within a component) matches
 * below `base`, which is taken literally: a folder named by a tool's state may hold any character.
 */
export async function expandUnder(base: string, pattern: string): Promise<string[]> {
  const parts = pattern.split(path.sep).filter((part) => part !== '');
  let current: string[] = [base];
  for (const part of parts) {
    if (!hasMagic(part)) {
      current = current.map((folder) => path.join(folder, part));
      continue;
    }
    const matcher = globToRegExp(part);
    const next: string[] = [];
    for (const folder of current) {
      for (const entry of await readdirOrEmpty(folder)) {
        // A home found by a pattern must be a real folder; a link in /home is not followed.
        if (entry.isDirectory() && matcher.test(entry.name)) next.push(path.join(folder, entry.name));
      }
    }
    current = next.sort();
  }
  return current;
}

export function hasMagic(part: string): boolean {
  return /[*?[]/.test(part);
}

/** A name pattern (`*`, `?`, `[…]`) as a RegExp that matches whole names; `*` takes no leading dot. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) source += '\\[';
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  // Like a shell, `*` does not match a leading dot.
  const dotGuard = glob.startsWith('.') ? '' : '(?!\\.)';
  return new RegExp(`^${dotGuard}${source}$`);
}
