import path from 'node:path';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { makeKiloDb } from './fixtures.js';

/**
 * opencode's data folder as it writes its logs, tool outputs and session diffs, for the tests that
 * cannot make the real opencode write each state (test/providers/kilo/real-opencode.slow.test.ts
 * checks these shapes against opencode 1.18.33 itself where it makes them):
 * - `log/opencode.log`, appended by every process since 1.18.33 (`timestamp=… level=… run=…`);
 * - `log/<YYYY-MM-DDTHHMMSS>.log`, one per process of an older opencode, named by its UTC start time
 *   without colons, lines `INFO  <time> +<ms>ms service=… <message>` (`packages/opencode/src/util/log.ts`);
 *   1.18.33 writes none, so these always stand in for an older opencode's;
 * - `log/heap-<pid>-<ms>.heapsnapshot` and `log/direct/<ms>-<pid>.jsonl` + `latest.json` (opt-in);
 * - `tool-output/tool_<ascending id>`: a truncated tool call's full output, as 1.18.33 writes it;
 * - `storage/session_diff/<sessionID>.json`: `JSON.stringify(diffs, null, 2)` of `{file, patch,
 *   additions, deletions, status}`, as 1.18.33 writes it on a revert; `storage/migration` = `2`;
 * - `storage/session/<projectID>/<sessionID>.json`: an older opencode's session file;
 * - `opencode.db` with opencode's `session` table.
 */
export interface OpencodeData {
  opencodeLog: string;
  /** Twelve per-process logs, oldest first: the first two are beyond the ten newest. */
  perProcessLogs: string[];
  heapSnapshot: string;
  direct: string;
  /** Eight days old: past opencode's seven. */
  oldToolOutputs: string[];
  /** Two days old. */
  youngToolOutput: string;
  /** Diffs of sessions opencode.db has. */
  liveDiffs: string[];
  /** The diff of a session only a legacy session file names. */
  legacyDiff: string;
  /** The diff of a deleted session: no row, no legacy file. */
  orphanDiff: string;
}

const LIVE_SESSIONS = ['ses_24df2343d001hZ0cb2y9bkL5kv', 'ses_24df3001a001Qm8KzT2r5wXyBn'];
const LEGACY_SESSION = 'ses_1a2b3c4d5ffeLegacySession01';
export const ORPHAN_SESSION = 'ses_db20dcc45ffeuc20twve7hUNuH';
const PROJECT = '8248a820085e5c77573bdee01d8e33fb0f9c911e';

/** A diff as opencode's session revert writes it. */
export function diffJson(file: string, line: string): string {
  return JSON.stringify(
    [
      {
        file,
        patch: `Index: ${file}\n===================================================================\n--- ${file}\t\n+++ ${file}\t\n@@ -0,0 +1,1 @@\n+${line}\n`,
        additions: 1,
        deletions: 0,
        status: 'added',
      },
    ],
    null,
    2,
  );
}

/** An older opencode's per-process log, started at `start`. */
export function perProcessLog(logDir: string, start: Date): string {
  const name = `${start.toISOString().split('.')[0]?.replace(/:/g, '')}.log`;
  const time = start.toISOString().split('.')[0];
  return put(
    path.join(logDir, name),
    `INFO  ${time} +0ms service=default version=0.3.112 args=["run","say hi"] opencode\nINFO  ${time} +2ms service=session id=ses_0 created\n`,
  );
}

/** Everything above in `data`, written ten days ago but the young tool output; `opencode.db` names the live sessions. */
export function opencodeData(data: string, worktree: string): OpencodeData {
  makeKiloDb(path.join(data, 'opencode.db'), {
    projects: [{ id: PROJECT, worktree }],
    sessions: LIVE_SESSIONS.map((id) => ({ id, projectId: PROJECT, directory: worktree })),
  });
  const log = path.join(data, 'log');
  const opencodeLog = put(
    path.join(log, 'opencode.log'),
    'timestamp=2026-12-07T00:40:11.690Z level=INFO run=5b77363a message="creating instance" directory=/work/app\n',
  );
  const perProcessLogs = Array.from({ length: 12 }, (_, k) =>
    perProcessLog(log, new Date(Date.UTC(2025, 5, 1 + k, 9, 30, 15))),
  );
  const heapSnapshot = put(path.join(log, 'heap-4242-1796602770134.heapsnapshot'), '{"snapshot":{"meta":{}}}');
  const direct = path.join(log, 'direct');
  put(path.join(direct, '1796602770134-4242.jsonl'), '{"type":"request"}\n');
  put(path.join(direct, 'latest.json'), '{"file":"1796602770134-4242.jsonl"}');
  const toolOutput = (id: string) =>
    put(path.join(data, 'tool-output', `tool_${id}`), Array.from({ length: 5000 }, (_, k) => k + 1).join('\n'));
  const oldToolOutputs = [toolOutput('24debbb81001DWqClc4PfY3b8V'), toolOutput('24debbc02001KfQ8mZt3Lr7wQe')];
  const youngToolOutput = toolOutput('24dec0a11001Yx5pRt7sKm2nBv');
  const diffs = path.join(data, 'storage', 'session_diff');
  const liveDiffs = LIVE_SESSIONS.map((id) => put(path.join(diffs, `${id}.json`), diffJson('made.txt', 'hello')));
  const legacyDiff = put(path.join(diffs, `${LEGACY_SESSION}.json`), diffJson('old.txt', 'old'));
  put(
    path.join(data, 'storage', 'session', PROJECT, `${LEGACY_SESSION}.json`),
    JSON.stringify({ id: LEGACY_SESSION, projectID: PROJECT, title: 'An old session' }, null, 2),
  );
  const orphanDiff = put(path.join(diffs, `${ORPHAN_SESSION}.json`), diffJson('gone.txt', 'gone'));
  put(path.join(data, 'storage', 'migration'), '2');
  backdate(data, daysAgo(10));
  backdate(youngToolOutput, daysAgo(2));
  return {
    opencodeLog,
    perProcessLogs,
    heapSnapshot,
    direct,
    oldToolOutputs,
    youngToolOutput,
    liveDiffs,
    legacyDiff,
    orphanDiff,
  };
}
