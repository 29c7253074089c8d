import path from 'node:path';
import {
  backdateTree,
  type SandboxBuilder,
  type SandboxContext,
  type SandboxExtras,
} from '../../provider-api/sandbox.js';
import { writeSandboxFile } from '../../engines/git-worktree/sandbox.js';
import { mkdir, symlink } from '../../safety/fs/write.js';
import { ownPidDomain, processStart } from '../../safety/processes/process-start.js';
import { rootName, slugOf } from './layout.js';

const DEAD = '3f2a9c1e-5b7d-4e8f-a0c6-1d2e3f4a5b6c';
const LIVE = '8c7b6a59-4d3e-4f21-9e0d-c1b2a3f4e5d6';
const STALE = '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const DAY_MS = 86_400_000;

/**
 * Claude Code's task output under a `claude-<uid>` in the sandbox (`providers.claude-code.tmpDir`
 * points there): a killed session's build log, three days old and still on disk (reclaimed, its
 * project folder with it); a session whose registry record names this very process, so it counts
 * as running (kept); an empty project folder (reclaimed); the killed session's session-env folder
 * and debug log, past Claude Code's own retention (reclaimed); and the home's transcripts and a
 * stale registry record, reported and never touched.
 */
export const claudeCodeSandbox: SandboxBuilder = {
  name: 'claude-code',
  async build(ctx: SandboxContext): Promise<SandboxExtras> {
    const tmp = path.join(ctx.root, 'tmp');
    const root = path.join(tmp, rootName(process.getuid?.() ?? 0));
    await mkdir(root, 0o700);
    const shop = path.join(ctx.root, 'projects', 'claude-shop');
    const app = path.join(ctx.root, 'projects', 'claude-app');
    const config = path.join(ctx.home, '.claude');

    const dead = path.join(root, slugOf(shop), DEAD);
    await mkdir(path.join(dead, 'started'), 0o700);
    const log = Array.from({ length: 2000 }, (_, i) => `webpack: compiled chunk ${i}\n`).join('');
    await writeSandboxFile(path.join(dead, 'tasks', 'b4k2m9x7q.output'), `${log}[killed]\n`);
    // The output of an agent task: a link to its transcript, removed as a link.
    const transcript = path.join(config, 'projects', slugOf(shop), DEAD, 'subagents', 'agent-a1b2c3d4e5f60718.jsonl');
    await writeSandboxFile(transcript, '{"type":"assistant","message":"done"}\n');
    await symlink(transcript, path.join(dead, 'tasks', 'a1b2c3d4e5f60718.output'));
    await writeSandboxFile(path.join(config, 'projects', slugOf(shop), `${DEAD}.jsonl`), '{"type":"user"}\n');
    await writeSandboxFile(
      path.join(config, 'sessions', '999999999.json'),
      record({ pid: 999_999_999, sessionId: STALE, cwd: shop, procStart: '1' }),
    );

    const live = path.join(root, slugOf(app), LIVE);
    await writeSandboxFile(path.join(live, 'tasks', 'b7p3n8w2z.output'), 'npm test -- --watch\n');
    const self = processStart(process.pid);
    if (self.state === 'running')
      await writeSandboxFile(
        path.join(config, 'sessions', `${process.pid}.json`),
        record({ pid: process.pid, sessionId: LIVE, cwd: app, procStart: self.start }),
      );
    await mkdir(path.join(root, slugOf(path.join(ctx.root, 'projects', 'old-experiment'))), 0o755);

    await backdateTree(root, ctx.old);
    await backdateTree(config, ctx.old);
    // Past Claude Code's own 30-day retention, which no later Claude Code applied: its session-env
    // folder and debug log go by the owner's rule; its transcript stays.
    const expired = new Date(Date.now() - 45 * DAY_MS);
    const env = path.join(config, 'session-env', DEAD);
    await writeSandboxFile(path.join(env, 'sessionstart-hook-0.sh'), 'export NODE_ENV=development\n');
    const debugLog = Array.from(
      { length: 400 },
      (_, i) => `2026-10-01T10:00:${String(i % 60).padStart(2, '0')}.000Z [DEBUG] tool call ${i}\n`,
    ).join('');
    await writeSandboxFile(path.join(config, 'debug', `${DEAD}.txt`), debugLog);
    await backdateTree(env, expired);
    await backdateTree(path.join(config, 'debug', `${DEAD}.txt`), expired);
    return { config: { providers: { 'claude-code': { tmpDir: tmp } } } };
  },
};

/** A registry record as Claude Code 2.1 writes it at start. */
function record(fields: { pid: number; sessionId: string; cwd: string; procStart: string }): string {
  let pidDomain = 'unknown';
  try {
    pidDomain = ownPidDomain();
  } catch {
    // No machine id here: the record then counts as of another domain, and the demo shows it refused.
  }
  return JSON.stringify({ ...fields, pidDomain, kind: 'interactive', status: 'idle', version: '2.1.332' });
}
