import { describe, expect, it } from 'vitest';
import type { ClineHistory } from '../../../src/providers/cline/history.js';
import { judgeClineRepo, judgeOrphanFolder, type ClinePlace } from '../../../src/providers/cline/judge.js';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import type { ClineRepoEntry } from '../../../src/providers/cline/listing.js';
import type { ShadowRepoFacts } from '../../../src/engines/vscode-storage/shadow-repo.js';

const W = '/home/ana/shop';
const HASH = hashWorkingDir(W);

function history(tasks: string[] = [], worktrees: string[] = []): ClineHistory {
  return {
    digest: '',
    newest: null,
    sources: ['/gs/state/taskHistory.json'],
    tasks: new Map(tasks.map((id) => [id, '/gs/state/taskHistory.json'])),
    worktrees: new Map(worktrees.map((folder) => [folder, '1'])),
    conversations: new Map(),
    sessionDatabases: [],
    lockedCheckpoints: new Map(),
  };
}

function place(extra: Partial<ClinePlace> = {}): ClinePlace {
  return { history: history(), settlement: { state: 'settled' }, legacyFormat: null, ...extra };
}

function facts(subjects: string[], extra: Partial<ShadowRepoFacts> = {}): ShadowRepoFacts {
  return {
    folder: `/gs/checkpoints/${HASH}`,
    gitdir: `/gs/checkpoints/${HASH}/.git`,
    gitdirIsFolder: true,
    strayEntries: [],
    config: { worktree: W, userName: 'Cline Checkpoint', userEmail: 'checkpoint@cline.bot' },
    commits: { subjects, branches: ['master'], count: subjects.length, newestMs: 1_790_000_000_000 },
    lockFiles: [],
    ...extra,
  };
}

const workspace: ClineRepoEntry = {
  layout: 'workspace',
  storage: '/gs',
  name: HASH,
  folder: `/gs/checkpoints/${HASH}`,
};
const perTask: ClineRepoEntry = {
  layout: 'task',
  storage: '/gs',
  name: '1740000000001',
  folder: '/gs/tasks/1740000000001/checkpoints',
};
const mine = (id: string) => `checkpoint-${HASH}-${id}`;

describe('the cline rule, pure', () => {
  it('deletes only when nothing names the repository, and says why', () => {
    const judged = judgeClineRepo(workspace, facts(['initial commit', mine('1'), mine('2')]), place());
    expect(judged).toMatchObject({ decision: 'delete', reason: 'task-deleted' });
    expect(judged.detail).toContain('1, 2');
  });

  it('keeps for a task named by a commit, a task-<id> branch, or a history item started in the worktree', () => {
    expect(judgeClineRepo(workspace, facts([mine('2')]), place({ history: history(['2']) })).reason).toBe(
      'task-in-history',
    );
    expect(
      judgeClineRepo(
        workspace,
        facts(['checkpoint'], {
          commits: { subjects: ['checkpoint'], branches: ['task-7'], count: 1, newestMs: null },
        }),
        place({ history: history(['7']) }),
      ).reason,
    ).toBe('task-in-history');
    expect(judgeClineRepo(workspace, facts([mine('2')]), place({ history: history([], [W]) })).reason).toBe(
      'task-in-history',
    );
    // A per-task repository is its task's alone: a history item started in the same workspace keeps nothing.
    expect(judgeClineRepo(perTask, facts(['checkpoint']), place({ history: history([], [W]) })).decision).toBe(
      'delete',
    );
  });

  it('does not count a checkpoint subject of another hash as Cline’s', () => {
    const judged = judgeClineRepo(workspace, facts([`checkpoint-999-1`]), place());
    expect(judged).toMatchObject({ decision: 'unfinished', reason: 'unknown-commits' });
  });

  it('puts the unreadable source first, then the identity, then life, then what blocks a delete', () => {
    const broken = place({ sourceProblem: 'x.json is not valid JSON', history: null });
    expect(judgeClineRepo(workspace, facts([mine('1')], { config: null, configProblem: 'gone' }), broken).reason).toBe(
      'source-unreadable',
    );
    expect(
      judgeClineRepo(workspace, facts([mine('1')], { strayEntries: ['a'] }), place({ history: history(['1']) })).reason,
    ).toBe('signature-mismatch');
    const alive = place({ history: history(['1']), settlement: { state: 'changed', detail: 'd' } });
    expect(judgeClineRepo(workspace, facts([mine('1'), 'mine'], { lockFiles: ['/l'] }), alive).reason).toBe(
      'task-in-history',
    );
    const dead = facts([mine('1')], { lockFiles: ['/gs/.git/index.lock'] });
    expect(judgeClineRepo(workspace, dead, place()).reason).toBe('git-lock-file');
    const locked = history();
    locked.lockedCheckpoints.set(HASH, '9');
    expect(judgeClineRepo(workspace, facts([mine('1')]), place({ history: locked })).reason).toBe('cline-lock-held');
    expect(
      judgeClineRepo(workspace, facts([mine('1')]), place({ settlement: { state: 'changed', detail: 'd' } })).reason,
    ).toBe('history-unsettled');
    expect(
      judgeClineRepo(workspace, facts([mine('1')]), place({ settlement: { state: 'clock-skew', detail: 'd' } })).reason,
    ).toBe('clock-skew');
  });

  it('reports an orphan conversation only when no record names its task', () => {
    const h = history(['5']);
    h.conversations.set('5', '/gs/tasks/5');
    h.conversations.set('6', '/gs/tasks/6');
    expect(judgeOrphanFolder('5', '/gs/tasks/5', place({ history: h }))).toBeNull();
    expect(judgeOrphanFolder('6', '/gs/tasks/6', place({ history: h }))?.reason).toBe('orphan-task-folder');
    expect(judgeOrphanFolder('7', '/gs/tasks/7', place({ history: h }))).toBeNull();
  });
});
