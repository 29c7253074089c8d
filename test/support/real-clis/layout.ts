import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The names below `dir`, `depth` levels deep, sorted, folders ending in `/` and links in `@`:
 * what a smoke test compares with the layout a real CLI wrote.
 */
export function layoutOf(dir: string, depth = 1, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const name = prefix + entry.name;
    if (entry.isSymbolicLink()) out.push(`${name}@`);
    else if (entry.isDirectory()) {
      out.push(`${name}/`);
      if (depth > 1) out.push(...layoutOf(path.join(dir, entry.name), depth - 1, `${name}/`));
    } else out.push(name);
  }
  return out.sort();
}

/** The permission bits, as `ls` shows them in octal: `700`, `644`. */
export function modeOf(file: string): string {
  return (lstatSync(file).mode & 0o7777).toString(8);
}

/** git with the sandbox's environment (its HOME and identity, no system config). */
export function gitWith(env: NodeJS.ProcessEnv, args: string[], cwd?: string): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...env, LC_ALL: 'C' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A user's project: a git repository with one commit of `README.md`. */
export function makeProject(env: NodeJS.ProcessEnv, dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'README.md'), '# app\n');
  gitWith(env, ['init', '-q', '-b', 'main'], dir);
  gitWith(env, ['add', '-A'], dir);
  gitWith(env, ['commit', '-qm', 'first'], dir);
  return dir;
}
