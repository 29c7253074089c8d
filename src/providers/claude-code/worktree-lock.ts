import path from 'node:path';
import type { LockAnswer, LockContext, WorktreeLock } from '../../provider-api/provider.js';
import { resolveRecorded, liesIn, identityOf } from '../../safety/identity/recorded.js';
import { isInside } from '../../safety/inside.js';
import { describeProcesses } from '../../safety/processes/describe-processes.js';
import { processStart } from '../../safety/processes/process-start.js';
import { gatherEvidence, pidDomain, tracesOf } from './evidence.js';
import { describeRecord, type ClaudeEvidence } from './judge.js';
import { claudeUsers } from './locations.js';

/**
 * The text Claude Code writes in a worktree's `locked` file, as its own code recognises it (2.1.332):
 * `claude <agent|session> <name> (pid <pid> start <procStart>)`, the start left out by older versions.
 */
const CLAUDE_LOCK = /^claude (?:agent|session) .{1,255} \(pid (\d{1,10})(?: start (.{1,255}))?\)$/;

/**
 * Claude Code's own lock on one of its worktrees (SYSTEMS.md 11.1): stale when its text is Claude
 * Code's, the pass sees every process (rule 19), the pid it names is gone or now runs a process
 * started at another moment than the lock says, no live registry record has its working directory
 * inside the worktree, and no running Claude Code works there. A live pid (a session, or the
 * `claude bg-spare` daemon that some versions name instead) keeps it, named with its command line.
 * Any other text: not Claude Code's, never touched (null).
 */
export async function claudeLock(lock: WorktreeLock, ctx: LockContext): Promise<LockAnswer> {
  const text = Buffer.from(lock.bytes).toString('utf8');
  const match = CLAUDE_LOCK.exec(text.endsWith('\n') ? text.slice(0, -1) : text);
  if (!match) return null;
  const quoted = JSON.stringify(match[0]);
  const pid = Number(match[1]);
  const start = match[2];
  const { processes } = ctx;
  const refuse = (reason: 'liveness-unknown' | 'source-unreadable', why: string): LockAnswer => ({
    state: 'held',
    judgement: {
      decision: 'refused',
      reason,
      detail: `the worktree is git-locked by Claude Code (${quoted}), and ${why}`,
    },
  });
  if (!processes.visible)
    return refuse(
      'liveness-unknown',
      `whether pid ${pid} runs cannot be told: the processes cannot be seen (${processes.why ?? 'unknown'})`,
    );
  const now = processStart(pid, processes.procRoot);
  if (now.state === 'unknown') return refuse('liveness-unknown', `whether pid ${pid} runs cannot be told: ${now.why}`);
  if (now.state === 'running' && (start === undefined || start === now.start)) {
    const [described] = describeProcesses(processes.procRoot, [pid]);
    const who = described
      ? `${described.command}${described.user === null ? '' : `, run by ${described.user}`}`
      : 'its command line cannot be read';
    return {
      state: 'held',
      judgement: {
        decision: 'refused',
        reason: 'git-locked',
        detail: `the worktree is git-locked by Claude Code (${quoted}), and pid ${pid} runs (${who})${start === undefined ? ', the lock naming no start to tell it from a later process' : ''}: Claude Code still claims it`,
      },
    };
  }
  const gone =
    now.state === 'gone'
      ? `pid ${pid} is gone`
      : `pid ${pid} now runs another process (started at tick ${now.start}, the lock says ${start})`;
  const user = claudeUsers(ctx.homes).find((each) => each.uid === lock.uid) ?? { uid: lock.uid, homes: [] };
  const traces = tracesOf(processes);
  const evidence = await gatherEvidence(user, [], traces, pidDomain(traces.procRoot), ctx.env);
  const inside = sessionInside(lock, evidence);
  if (inside) return inside;
  return { state: 'stale', detail: `Claude Code's own lock ${quoted} names a process that has ended: ${gone}` };
}

/**
 * A Claude Code session at work in the worktree, by its registry record (its `cwd` inside, by
 * identity, rule 25) or its working directory: held. A registry that cannot be read, or a record
 * whose process cannot be told alive or dead: refused.
 */
function sessionInside(lock: WorktreeLock, evidence: ClaudeEvidence): Extract<LockAnswer, { state: 'held' }> | null {
  const where = lock.worktree;
  if (evidence.problems.length > 0)
    return {
      state: 'held',
      judgement: {
        decision: 'refused',
        reason: 'source-unreadable',
        detail: `Claude Code's registry of live sessions cannot be read, so no session is proven gone from it: ${evidence.problems[0]}`,
      },
    };
  const identity = identityOf(where);
  const within = (cwd: string) =>
    isInside(where, path.resolve(cwd)) || identity === null || liesIn(identity, resolveRecorded(cwd, lock.uid));
  const record = evidence.records.find((each) => each.life.state !== 'dead' && within(each.cwd));
  if (record?.life.state === 'live')
    return {
      state: 'held',
      judgement: {
        decision: 'kept',
        reason: 'session-live',
        detail: `Claude Code is running in it: ${describeRecord(record)}`,
      },
    };
  if (record?.life.state === 'unknown')
    return {
      state: 'held',
      judgement: {
        decision: 'refused',
        reason: 'liveness-unknown',
        detail: `whether the Claude Code of ${describeRecord(record)} runs cannot be told: ${record.life.why}`,
      },
    };
  const running = evidence.running.find((each) => within(each.cwd));
  if (running)
    return {
      state: 'held',
      judgement: {
        decision: 'kept',
        reason: 'session-live',
        detail: `Claude Code is running in it: process ${running.named} has its working directory in ${running.cwd}`,
      },
    };
  return null;
}
