import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lchownSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';

/** A user of this machine made with useradd for one test file, removed with userdel after it. */
export interface RealUser {
  name: string;
  uid: number;
  gid: number;
}

const made: string[] = [];

/**
 * Real users, each with a group of its own, no home made by useradd (a test makes the home it
 * needs where it needs it; `home` is what the passwd database names, where given) and no login
 * shell. Only root may call this.
 */
export function addUsers(count: number, options: { home?: string } = {}): RealUser[] {
  const users: RealUser[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = `aj${randomBytes(4).toString('hex')}${i}`;
    const home = options.home ? ['--home-dir', options.home] : [];
    execFileSync('useradd', ['--no-create-home', ...home, '--user-group', '--shell', '/usr/sbin/nologin', name], {
      stdio: 'ignore',
    });
    made.push(name);
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    users.push({ name, uid, gid });
  }
  return users;
}

afterAll(() => {
  for (const name of made.splice(0)) execFileSync('userdel', [name], { stdio: 'ignore' });
});

/** Hands a tree to `owner` (links themselves included, never what they point at). */
export function giveTo(root: string, owner: { uid: number; gid: number }): void {
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    lchownSync(current, owner.uid, owner.gid);
    const stats = lstatSync(current);
    if (stats.isDirectory() && !stats.isSymbolicLink())
      for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
}

/** The uid of a system user, or null when there is none of that name. */
function uidOf(name: string): number | null {
  try {
    return Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return null;
  }
}

/**
 * A real user of this machine (useradd, no home, no login shell), made once and kept: its uid.
 * Another test process may make the same user at the same moment; either one's is taken.
 */
export function ensureUser(name: string): number {
  const known = uidOf(name);
  if (known !== null) return known;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', name], {
      stdio: 'ignore',
    });
  } catch {
    // Made meanwhile by another process: asked again below.
  }
  const made = uidOf(name);
  if (made === null) throw new Error(`useradd could not make the user ${name}`);
  return made;
}

/** The primary group of a user made by ensureUser. */
export function gidOf(name: string): number {
  return Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
}
