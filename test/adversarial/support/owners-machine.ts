import { chmodSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { PassResult } from '../../../src/pass/pass.js';
import type { ProviderName } from '../../../src/model/types.js';
import { removeTree } from '../../../src/safety/removal/remove.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';

/** A machine with two users' homes, A's bigger disk, and a folder of root's. */
export interface Machine {
  dir: string;
  homeA: string;
  homeB: string;
  /** A's folder on another disk (`/big/a`). */
  big: string;
  /** Root's own folder (`/srv`). */
  srv: string;
  runDir: string;
}

export function machine(): Machine {
  const dir = tempDir('aj-owners-');
  chmodSync(dir, 0o755);
  const m = {
    dir,
    homeA: path.join(dir, 'home', 'a'),
    homeB: path.join(dir, 'home', 'b'),
    big: path.join(dir, 'big', 'a'),
    srv: path.join(dir, 'srv'),
    runDir: tempDir('aj-owners-run-'),
  };
  for (const folder of [m.homeA, m.homeB, m.big, m.srv]) mkdirSync(folder, { recursive: true });
  return m;
}

/**
 * Plants a link at `at` to `to`: what was at `at` is moved there first (`move`), or dropped (the
 * link then leads to what is at `to` already).
 */
export function plant(at: string, to: string, move: boolean): string {
  if (move) {
    mkdirSync(path.dirname(to), { recursive: true });
    renameSync(at, to);
  } else removeTree(at);
  mkdirSync(path.dirname(at), { recursive: true });
  symlinkSync(to, at);
  return at;
}

/** The environment of a pass whose user owns none of the homes: no variable of its own applies. */
const FOREIGN_ENV: NodeJS.ProcessEnv = {
  HOME: '/nonexistent-home',
  XDG_CONFIG_HOME: '',
  XDG_DATA_HOME: '',
  XDG_STATE_HOME: '',
  CODEX_HOME: '',
  CLINE_DIR: '',
  CLAUDE_CONFIG_DIR: '',
  KILO_DB: '',
  OPENCODE_DB: '',
};

/** One real pass of one provider over `homes` (A's home unless told), as root. */
export function passOver(
  m: Machine,
  provider: ProviderName,
  options: { homes?: string[]; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv; reportOnly?: boolean } = {},
): Promise<PassResult> {
  return pass({
    dir: m.runDir,
    config: { homes: options.homes ?? [m.homeA], minAge: '1h', ...options.config },
    only: [provider],
    reportOnly: options.reportOnly ?? false,
    env: { ...FOREIGN_ENV, ...options.env },
  });
}
