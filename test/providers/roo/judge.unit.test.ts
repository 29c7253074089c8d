import { describe, expect, it } from 'vitest';
import type { RooHistory } from '../../../src/providers/roo/history.js';
import { judgeRooOrphan, judgeRooRepo, type RooPlace } from '../../../src/providers/roo/judge.js';
import { KILO_LEGACY, ROO } from '../../../src/providers/roo/layout.js';
import type { RooRepoEntry } from '../../../src/providers/roo/listing.js';
import type { ShadowRepoFacts } from '../../../src/engines/vscode-storage/shadow-repo.js';

const ID = '0199a000-0000-7000-8000-000000000001';
const entry: RooRepoEntry = { layout: 'task', storage: '/gs', name: ID, folder: `/gs/tasks/${ID}/checkpoints` };

function history(tasks: string[] = [], extra: Partial<RooHistory> = {}): RooHistory {
  return {
    digest: '',
    newest: null,
    sources: ['/gs/state.vscdb'],
    tasks: new Map(tasks.map((id) => [id, '/s'])),
    bases: ['/gs'],
    ...extra,
  };
}

function place(extra: Partial<RooPlace> = {}): RooPlace {
  return { extension: ROO, history: history(), settlement: { state: 'settled' }, legacyFormat: null, ...extra };
}

function facts(subjects: string[], extra: Partial<ShadowRepoFacts> = {}): ShadowRepoFacts {
  return {
    folder: entry.folder,
    gitdir: `${entry.folder}/.git`,
    gitdirIsFolder: true,
    strayEntries: [],
    config: { worktree: '/home/ana/game', userName: 'Roo Code', userEmail: 'noreply@example.com' },
    commits: { subjects, branches: ['master'], count: subjects.length, newestMs: 1_790_000_000_000 },
    lockFiles: [],
    ...extra,
  };
}

describe('the roo rule, pure', () => {
  it('deletes only when no source names the task, the folder’s or a commit’s', () => {
    expect(
      judgeRooRepo(entry, facts(['initial commit', `Task: ${ID}, Time: 1`]), place(), { state: 'none' }).decision,
    ).toBe('delete');
    expect(
      judgeRooRepo(entry, facts(['initial commit']), place({ history: history([ID]) }), { state: 'none' }).reason,
    ).toBe('task-in-history');
    expect(
      judgeRooRepo(entry, facts(['Task: other, Time: 1']), place({ history: history(['other']) }), { state: 'none' })
        .reason,
    ).toBe('task-in-history');
    expect(
      judgeRooRepo(entry, facts([]), place(), {
        state: 'names-task',
        task: ID,
        source: '/ws/base/tasks/x/history_item.json',
      }).reason,
    ).toBe('task-in-history');
  });

  it('refuses on an unmounted custom path (the user’s or the workspace’s), and an unsettled history', () => {
    expect(
      judgeRooRepo(entry, facts([]), place({ history: history([], { customProblem: 'gone' }) }), { state: 'none' })
        .reason,
    ).toBe('custom-path-unmounted');
    expect(
      judgeRooRepo(entry, facts([]), place(), { state: 'problem', reason: 'custom-path-unmounted', detail: 'nas' })
        .reason,
    ).toBe('custom-path-unmounted');
    expect(
      judgeRooRepo(entry, facts([]), place({ settlement: { state: 'changed', detail: 'd' } }), { state: 'none' })
        .reason,
    ).toBe('history-unsettled');
  });

  it('knows the extension by its identity: a Kilo repository is not Roo’s', () => {
    const kilo = facts([], { config: { worktree: '/w', userName: 'Kilo Code', userEmail: 'noreply@example.com' } });
    expect(judgeRooRepo(entry, kilo, place(), { state: 'none' }).reason).toBe('signature-mismatch');
    expect(judgeRooRepo(entry, kilo, place({ extension: KILO_LEGACY }), { state: 'none' }).decision).toBe('delete');
  });

  it('reports a live legacy repository, and an orphan folder only when no source names it', () => {
    const legacy = place({
      extension: KILO_LEGACY,
      history: history([ID]),
      legacyFormat: 'Kilo Code 7 no longer reads it',
    });
    const kilo = facts([], { config: { worktree: '/w', userName: 'Kilo Code', userEmail: 'noreply@example.com' } });
    expect(judgeRooRepo(entry, kilo, legacy, { state: 'none' })).toMatchObject({
      decision: 'unfinished',
      reason: 'alive-legacy-format',
    });
    expect(judgeRooOrphan(ID, `/gs/tasks/${ID}`, ['ui_messages.json'], place())?.reason).toBe('orphan-task-folder');
    expect(judgeRooOrphan(ID, `/gs/tasks/${ID}`, ['ui_messages.json'], place({ history: history([ID]) }))).toBeNull();
  });
});
