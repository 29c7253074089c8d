import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { PassResult } from '../../../src/pass/pass.js';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import {
  extensionStorage,
  makeShadowRepo,
  stateDbOf,
  userDataOf,
  writeStateDb,
} from '../../engines/vscode-storage/fixtures.js';

/**
 * Roo Code's and the old Kilo Code extension's storage, built exactly as their sources write it
 * (RooCodeInc/Roo-Code@cb83656, Kilo-Org/kilocode-legacy@56b73d3): both run only inside VS Code,
 * so no real tool can make these here. The checkpoint repository is always
 * `<globalStorage>/tasks/<id>/checkpoints` (ShadowCheckpointService.initShadowGit: `git init
 * --template ""`, core.worktree, commit.gpgSign false, user "Roo Code" or "Kilo Code"
 * <noreply@example.com>, info/exclude, `initial commit`, then `Task: <id>, Time: <ms>`); the
 * history is the `taskHistory` of the extension's row in state.vscdb, and since Roo 3.49 also
 * `<base>/tasks/<id>/history_item.json` and `<base>/tasks/_index.json` (TaskHistoryStore), where
 * the base is the custom storage path when one is set.
 */

export interface Extension {
  /** The state row's key, in the manifest's case. */
  key: string;
  userName: string;
  section: string;
}

export const ROO: Extension = { key: 'RooVeterinaryInc.roo-cline', userName: 'Roo Code', section: 'roo-cline' };
export const KILO: Extension = { key: 'kilocode.kilo-code', userName: 'Kilo Code', section: 'kilo-code' };

export interface RooScene {
  root: string;
  home: string;
  userData: string;
  gs: string;
  stateDb: string;
  projects: string;
  work: string;
  extension: Extension;
}

export function rooScene(extension: Extension = ROO): RooScene {
  const root = tempDir('aj-roo-');
  const home = path.join(root, 'home');
  const userData = userDataOf(home);
  const gs = extensionStorage(userData, extension.key);
  const stateDb = writeStateDb(stateDbOf(userData), { [extension.key]: { taskHistory: [] } });
  const projects = path.join(root, 'projects');
  mkdirSync(projects, { recursive: true });
  return { root, home, userData, gs, stateDb, projects, work: tempDir('aj-roo-run-'), extension };
}

/** A HistoryItem as Roo writes it (packages/types/src/history.ts). */
export function historyItem(
  id: string,
  workspace: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    number: 1,
    ts: 1790000000000,
    task: 'write hello',
    tokensIn: 10,
    tokensOut: 4,
    totalCost: 0,
    size: 2048,
    workspace,
    mode: 'code',
    status: 'completed',
    ...extra,
  };
}

/** The extension's row of the default profile's state database: its `taskHistory` (and the migration flag). */
export function writeGlobalHistory(s: RooScene, items: Array<Record<string, unknown>>, file = s.stateDb): void {
  writeStateDb(file, { [s.extension.key]: { taskHistory: items, taskHistoryMigratedToFiles: true } });
}

/** `<base>/tasks/<id>/history_item.json` and the conversation beside it, as Roo 3.49+ writes them. */
export function taskFiles(
  base: string,
  item: Record<string, unknown>,
  options: { historyItem?: boolean } = {},
): string {
  const dir = path.join(base, 'tasks', item.id as string);
  put(path.join(dir, 'api_conversation_history.json'), JSON.stringify([{ role: 'user', content: 'write hello' }]));
  put(
    path.join(dir, 'ui_messages.json'),
    JSON.stringify([{ ts: 1790000000000, type: 'say', say: 'text', text: 'write hello' }]),
  );
  if (options.historyItem !== false) put(path.join(dir, 'history_item.json'), JSON.stringify(item));
  return dir;
}

export function writeIndex(base: string, items: Array<Record<string, unknown>>): string {
  return put(
    path.join(base, 'tasks', '_index.json'),
    JSON.stringify({ version: 1, updatedAt: 1790000000000, entries: items }),
  );
}

/** `<globalStorage>/tasks/<id>/checkpoints`: a task's repository, one commit per checkpoint. */
export function taskRepo(
  s: RooScene,
  id: string,
  worktree: string,
  options: { extra?: string[]; checkpoints?: number } = {},
): string {
  const checkpoints = Array.from(
    { length: options.checkpoints ?? 2 },
    (_, i) => `Task: ${id}, Time: ${1790000000000 + i * 1000}`,
  );
  return makeShadowRepo(path.join(s.gs, 'tasks', id, 'checkpoints'), {
    worktree,
    userName: s.extension.userName,
    userEmail: 'noreply@example.com',
    emptyTemplate: true,
    checkpoints: [...checkpoints, ...(options.extra ?? [])],
  });
}

/** The user's settings.json of the default profile, with comments and a trailing comma as people write it. */
export function writeUserSettings(userData: string, settings: Record<string, unknown>): string {
  const body = Object.entries(settings)
    .map(([key, value]) => `  // set by hand\n  ${JSON.stringify(key)}: ${JSON.stringify(value)},`)
    .join('\n');
  return put(path.join(userData, 'User', 'settings.json'), `{\n  /* user settings */\n${body}\n}\n`);
}

export function settle(s: RooScene): void {
  backdate(s.root, daysAgo(2));
}

const FOREIGN_ENV: NodeJS.ProcessEnv = { HOME: '/nonexistent-home', XDG_CONFIG_HOME: '' };

export function runRoo(
  s: { home: string; work: string },
  options: { reportOnly?: boolean; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv; minAge?: string } = {},
): Promise<PassResult> {
  return pass({
    dir: s.work,
    config: { homes: [s.home], minAge: options.minAge ?? '0s', ...options.config },
    only: ['roo'],
    reportOnly: options.reportOnly ?? false,
    env: { ...FOREIGN_ENV, ...options.env },
    // The processes these tests start are their own: another file's git elsewhere must not count.
    processScope: 'own',
  });
}
