import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { CLI } from './cli.js';

const CHECKOUT = path.resolve(path.dirname(CLI), '..');
let mounted: string | null = null;

/** True when a user who is neither the owner nor in the group can reach and read `target`. */
function othersReach(target: string): boolean {
  for (let folder = path.dirname(target); ; folder = path.dirname(folder)) {
    if ((statSync(folder).mode & 0o001) === 0) return false;
    if (folder === path.dirname(folder)) break;
  }
  return (statSync(target).mode & 0o004) !== 0;
}

/**
 * The built CLI at a path every user can reach, for a pass run as another user. A checkout in a
 * folder only root may enter (`/root/src`) is bound at a world-readable mount point
 * for the life of the test file; elsewhere it is the CLI itself. Root only (tests that run the
 * product as another user are root's anyway).
 */
export function cliReachableByAnyone(): string {
  if (othersReach(CLI)) return CLI;
  if (mounted === null) {
    const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'aj-checkout-'));
    execFileSync('mount', ['--bind', CHECKOUT, mountPoint]);
    mounted = mountPoint;
  }
  const reachable = path.join(mounted, path.relative(CHECKOUT, CLI));
  accessSync(reachable, constants.R_OK);
  return reachable;
}

afterAll(() => {
  if (mounted === null) return;
  execFileSync('umount', ['--lazy', mounted]);
  rmdirSync(mounted);
  mounted = null;
});
