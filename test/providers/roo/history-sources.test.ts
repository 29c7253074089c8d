import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put } from '../../helpers/fs-fixtures.js';
import { itemAt } from '../../helpers/pass.js';
import { writeStateDb } from '../../engines/vscode-storage/fixtures.js';
import { historyItem, type RooScene, rooScene, runRoo, settle, taskRepo, writeIndex } from './fixtures.js';

const ID = (n: number) => `019a0000-0000-7000-8000-0000000000${String(n).padStart(2, '0')}`;

/** A report-only pass after the sources settle: the provider's error, and the repository's verdict. */
async function outcome(s: RooScene, repo: string): Promise<{ error: string | undefined; verdict: string }> {
  settle(s);
  const { report } = await runRoo(s, { reportOnly: true });
  return { error: report.providers[0]?.error, verdict: itemAt(report, repo).verdict };
}

describe("Roo Code's history sources: the line each refused source gets", () => {
  it("a state database's taskHistory, the index and a task's history_item.json", async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'app');
    const repo = taskRepo(s, ID(1), ws);
    const index = path.join(s.gs, 'tasks', '_index.json');
    const item = path.join(s.gs, 'tasks', ID(1), 'history_item.json');
    const row = (value: unknown) => writeStateDb(s.stateDb, { [s.extension.key]: value });
    const cases: Array<[() => void, string]> = [
      [() => row({ taskHistory: {} }), `${s.stateDb}: taskHistory is not a list of history items`],
      [() => row({ taskHistory: [5] }), `${s.stateDb} (taskHistory): a history item is not a JSON object`],
      [() => row({ taskHistory: [{ id: '' }] }), `${s.stateDb} (taskHistory): a history item has no id`],
      [() => row({ taskHistory: [{ id: 7 }] }), `${s.stateDb} (taskHistory): a history item has no id`],
      [() => writeFileSync(index, '[]'), `${index}: not a task history index (no list of entries)`],
      [() => writeFileSync(index, '{"entries": {}}'), `${index}: not a task history index (no list of entries)`],
      [
        () => writeIndex(s.gs, [historyItem(ID(2), ws), [] as unknown as Record<string, unknown>]),
        `${index}: a history item is not a JSON object`,
      ],
      [() => writeIndex(s.gs, [{ task: 'x' }]), `${index}: a history item has no id`],
      [() => put(item, '"x"'), `${item}: a history item is not a JSON object`],
      [() => put(item, '{"id": null}'), `${item}: a history item has no id`],
    ];
    for (const [write, error] of cases) {
      row({ taskHistory: [] });
      writeIndex(s.gs, []);
      put(item, JSON.stringify(historyItem(ID(1), ws)));
      write();
      expect(await outcome(s, repo)).toEqual({ error, verdict: 'refused' });
    }
  });

  it('takes any other value of the links, the children and the keys it does not read', async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'app');
    const repo = taskRepo(s, ID(3), ws);
    writeStateDb(s.stateDb, {
      [s.extension.key]: {
        taskHistory: [
          historyItem(ID(4), ws, { parentTaskId: 5, rootTaskId: '', childIds: 'x', workspace: null }),
          historyItem(ID(5), ws, { delegatedToId: {}, childIds: [1, null, ID(3)] }),
        ],
      },
    });
    expect(await outcome(s, repo)).toEqual({ error: undefined, verdict: 'kept' });
    writeStateDb(s.stateDb, { [s.extension.key]: { taskHistory: null, other: 1 } });
    writeIndex(s.gs, [historyItem(ID(6), ws, { awaitingChildId: ID(3) })]);
    expect(await outcome(s, repo)).toEqual({ error: undefined, verdict: 'kept' });
  });

  it("the user's settings: an object, whose customStoragePath may be flat or nested", async () => {
    const s = rooScene();
    const ws = path.join(s.projects, 'app');
    const repo = taskRepo(s, ID(7), ws);
    const settings = path.join(s.userData, 'User', 'settings.json');
    for (const text of ['[]', '"x"', 'null']) {
      put(settings, text);
      expect(await outcome(s, repo)).toEqual({
        error: `${settings}: not a JSON object of settings`,
        verdict: 'refused',
      });
    }
    // A custom storage path whose index names the task keeps its repository, however it is set.
    const custom = path.join(s.root, 'custom');
    writeIndex(custom, [historyItem(ID(7), ws)]);
    const ways = [
      { 'roo-cline.customStoragePath': custom, 'roo-cline': ['not', 'a', 'section'] },
      { 'roo-cline': { customStoragePath: custom } },
    ];
    for (const way of ways) {
      put(settings, JSON.stringify(way));
      expect(await outcome(s, repo)).toEqual({ error: undefined, verdict: 'kept' });
    }
    // Anywhere else it names no storage: nothing names the task.
    put(settings, JSON.stringify({ 'roo-cline': 'no section', other: { customStoragePath: custom } }));
    expect(await outcome(s, repo)).toEqual({ error: undefined, verdict: 'would-delete' });
  });
});
