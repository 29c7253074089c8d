import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PassResult } from '../../../src/pass/pass.js';
import { backdate } from '../../helpers/fs-fixtures.js';
import { pass } from '../../helpers/pass.js';
import { sha256, type GeminiScene } from './fixtures.js';

/**
 * A chat session as Gemini CLI 0.61.0 writes it (packages/core/src/services/chatRecordingService.ts,
 * checked against the files the real CLI wrote in real-cli.slow.test.ts): `chats/session-<first 16
 * of the ISO start time, colons as dashes>-<first 8 of the session id>.jsonl`, appended one JSON
 * record a line: the metadata (`sessionId`, `projectHash` = sha256 of the project root,
 * `startTime`, `lastUpdated`, `kind`), a `$set` of the first messages (the injected
 * `<session_context>`), the user's message, each answer, and a `$set` of `lastUpdated` after
 * each. What goes with a session (its log, tool outputs, plans folder, subagents) is made where
 * sessionOperations.ts `deleteSessionArtifactsAsync` looks for it; the real CLI writes those only
 * for long tool output, plans and subagents, which a short test run does not make.
 */
export interface Session {
  id: string;
  chat: string;
  /** Everything the cleanup removes with it, that exists. */
  companions: string[];
}

export interface SessionOptions {
  /** When it started and was last updated. */
  at: Date;
  /** A session that holds nothing to resume: started, then left before a prompt. */
  empty?: boolean;
  /** Its log, tool outputs, plans folder, and a subagent with tool outputs of its own. */
  companions?: boolean;
  prompt?: string;
  id?: string;
}

export function session(tmp: string, project: string, options: SessionOptions): Session {
  const id = options.id ?? randomUUID();
  const start = options.at.toISOString();
  const chats = path.join(tmp, 'chats');
  mkdirSync(chats, { recursive: true });
  const chat = path.join(chats, `session-${start.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`);
  const record = (value: unknown) => appendFileSync(chat, `${JSON.stringify(value)}\n`);
  record({ sessionId: id, projectHash: sha256(project), startTime: start, lastUpdated: start, kind: 'main' });
  record({
    $set: {
      messages: [
        {
          id: randomUUID().replace(/-/g, ''),
          timestamp: start,
          type: 'user',
          content: [
            { text: '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n' },
          ],
        },
      ],
    },
  });
  if (!options.empty) {
    record({ id: randomUUID(), timestamp: start, type: 'user', content: [{ text: options.prompt ?? 'write hello' }] });
    record({ $set: { lastUpdated: start } });
    record({ id: randomUUID(), timestamp: start, type: 'gemini', content: 'Done.', thoughts: [], model: 'fake-model' });
    record({ $set: { lastUpdated: start } });
  }
  const companions: string[] = [];
  if (options.companions) {
    const log = path.join(tmp, 'logs', `session-${id}.jsonl`);
    mkdirSync(path.dirname(log), { recursive: true });
    writeFileSync(
      log,
      `${JSON.stringify({ sessionId: id, type: 'user', message: 'write hello', timestamp: start })}\n`,
    );
    const outputs = path.join(tmp, 'tool-outputs', `session-${id}`);
    mkdirSync(outputs, { recursive: true });
    writeFileSync(path.join(outputs, 'run_shell_command_1.txt'), 'x'.repeat(60_000));
    const own = path.join(tmp, id);
    mkdirSync(path.join(own, 'plans'), { recursive: true });
    writeFileSync(path.join(own, 'plans', 'plan.md'), '# Plan\n');
    const agent = randomUUID();
    const subagents = path.join(chats, id);
    mkdirSync(subagents, { recursive: true });
    writeFileSync(
      path.join(subagents, `${agent}.jsonl`),
      `${JSON.stringify({ sessionId: agent, projectHash: sha256(project), startTime: start, lastUpdated: start, kind: 'subagent', directories: [project] })}\n`,
    );
    const agentOutputs = path.join(tmp, 'tool-outputs', `session-${agent}`);
    mkdirSync(agentOutputs, { recursive: true });
    writeFileSync(path.join(agentOutputs, 'read_file_1.txt'), 'y'.repeat(1000));
    companions.push(log, outputs, own, subagents, agentOutputs);
  }
  for (const each of [chat, ...companions]) backdate(each, options.at);
  return { id, chat, companions };
}

/** `tmp/<slug>/` of a project, its `.project_root` naming it (written three days ago). */
export function projectTmp(s: GeminiScene, slug: string, project: string): string {
  const tmp = path.join(s.gemini, 'tmp', slug);
  mkdirSync(tmp, { recursive: true });
  writeFileSync(path.join(tmp, '.project_root'), project);
  backdate(path.join(tmp, '.project_root'), new Date(Date.now() - 3 * 86_400_000));
  return tmp;
}

export function runRetention(
  s: GeminiScene,
  options: {
    apply?: boolean;
    reportOnly?: boolean;
    minAge?: string;
    env?: NodeJS.ProcessEnv;
    clock?: () => Date;
    onPlanned?: () => void;
  } = {},
): Promise<PassResult> {
  return pass({
    dir: s.work,
    config: {
      homes: [s.home],
      minAge: options.minAge ?? '1h',
      providers: { gemini: { applyOwnerRetention: options.apply ?? true } },
    },
    only: ['gemini'],
    reportOnly: options.reportOnly ?? false,
    // Where the test's own system settings are, when it writes some (besides /etc/gemini-cli).
    env: {
      HOME: '/nonexistent-home',
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(s.root, 'etc', 'settings.json'),
      ...options.env,
    },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onPlanned ? { onPlanned: options.onPlanned } : {}),
  });
}
