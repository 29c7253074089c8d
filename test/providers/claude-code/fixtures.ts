import { randomUUID } from 'node:crypto';
import { chmodSync, lutimesSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { diffInventories, inventory } from '../../helpers/inventory.js';
import { pass, type PassSetup } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { giveTo, type RealUser } from '../../helpers/users.js';

/** Field 22 of /proc/<pid>/stat. */
export function startOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] as string;
}

/** This machine's and PID namespace's pid domain, as Claude Code writes it. */
export const pidDomain = (): string =>
  `linux:${readFileSync('/etc/machine-id', 'utf8').trim()}:${readlinkSync('/proc/self/ns/pid')}`;

/** Claude Code's slug of a working directory (short paths). */
export const slugOf = (cwd: string): string => cwd.replace(/[^A-Za-z0-9]/g, '-');

/**
 * A home with Claude Code's state, and a `claude-<uid>` root of task output under a tmp folder of
 * the test's own (named by `providers.claude-code.tmpDir`), laid out as Claude Code writes it (src/providers/claude-code/README.md).
 * With an `owner`, the world is that user's: every entry in it is handed to the owner before each
 * pass, so the stand-in Claude Code processes of a test run as that user, and no pass over another
 * test's root-owned home takes them for its owner's.
 */
export interface ClaudeWorld {
  dir: string;
  home: string;
  tmp: string;
  uid: number;
  root: string;
  /** `~/.claude`. */
  config: string;
  /** A session folder with one Bash task's output (and `started/`), every entry dated `when` (3 days ago). */
  session(cwd: string, sid?: string, when?: Date): { folder: string; sid: string; output: string };
  /** A registry record `sessions/<pid>.json` as Claude Code 2.1 writes it. */
  record(fields: { pid: number; sessionId: string; cwd: string; procStart?: string; pidDomain?: string }): string;
  /** A pass of this provider alone over the world. */
  pass(extra?: Partial<PassSetup>): ReturnType<typeof pass>;
  /** Every entry of the world, hashed. */
  snapshot(): ReturnType<typeof inventory>;
  changes(before: ReturnType<typeof inventory>): ReturnType<typeof diffInventories>;
}

export function claudeWorld(options: { owner?: RealUser; config?: Record<string, unknown> } = {}): ClaudeWorld {
  const dir = tempDir('aj-claude-');
  const owner = options.owner ?? null;
  // Its owner's processes work in it (a project, a copied executable): the folder above must let them in.
  if (owner) chmodSync(dir, 0o755);
  const home = path.join(dir, 'home');
  const tmp = path.join(dir, 'tmp');
  const uid = owner?.uid ?? process.getuid?.() ?? 0;
  const root = path.join(tmp, `claude-${uid}`);
  const config = path.join(home, '.claude');
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o700);
  mkdirSync(path.join(config, 'sessions'), { recursive: true });
  const world: ClaudeWorld = {
    dir,
    home,
    tmp,
    uid,
    root,
    config,
    session(cwd, sid = randomUUID(), when = daysAgo(3)) {
      const folder = path.join(root, slugOf(cwd), sid);
      mkdirSync(path.join(folder, 'started'), { recursive: true, mode: 0o700 });
      const output = put(path.join(folder, 'tasks', 'b1a2b3c4d.output'), 'line 1\nline 2\n\n[exited with code 0]\n');
      backdate(folder, when);
      lutimesSync(path.dirname(folder), when, when);
      return { folder, sid, output };
    },
    record(fields) {
      const file = path.join(config, 'sessions', `${fields.pid}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          pid: fields.pid,
          sessionId: fields.sessionId,
          cwd: fields.cwd,
          startedAt: Date.now(),
          procStart: fields.procStart ?? startOf(fields.pid),
          pidDomain: fields.pidDomain ?? pidDomain(),
          version: '2.1.332',
          kind: 'interactive',
          entrypoint: 'cli',
          status: 'idle',
        }),
      );
      return file;
    },
    pass: (extra = {}) => {
      // What the test wrote since (sessions, records, links) is the owner's too, as Claude Code would have made it.
      if (owner) giveTo(dir, owner);
      return pass({
        dir,
        only: ['claude-code'],
        env: { HOME: home },
        ...extra,
        config: {
          homes: [home],
          minAge: '1h',
          // Managed settings of the world's own: a pass of a test never reads this machine's /etc/claude-code.
          providers: { 'claude-code': { tmpDir: tmp, managedSettingsDir: path.join(dir, 'etc', 'claude-code') } },
          ...options.config,
          ...extra.config,
        },
      });
    },
    snapshot: () => inventory(dir, { exclude: [path.join(dir, 'report'), path.join(dir, 'agent-janitor.yaml')] }),
    changes: (before) => diffInventories(before, world.snapshot()),
  };
  return world;
}
