import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemAt } from '../../helpers/pass.js';
import { writeStateDb } from '../../engines/vscode-storage/fixtures.js';
import {
  CLINE_ID,
  clineScene,
  historyItem,
  runCline,
  settle,
  workspaceRepo,
  writeTaskHistory,
  type ClineScene,
} from './fixtures.js';

const ID = '1790000000160';

/** A scene whose only repository belongs to task ID, which the history names unless told otherwise. */
function scene(): { s: ClineScene; repo: string; cwd: string } {
  const s = clineScene();
  const cwd = path.join(s.projects, 'a');
  const repo = workspaceRepo(s.gs, cwd, [ID]);
  writeTaskHistory(s.gs, [historyItem(ID, cwd)]);
  return { s, repo, cwd };
}

/** A report-only pass after the sources settle: the provider's error, and the repository's verdict. */
async function outcome(s: ClineScene, repo: string): Promise<{ error: string | undefined; verdict: string }> {
  settle(s);
  const { report } = await runCline(s, { reportOnly: true });
  return { error: report.providers[0]?.error, verdict: itemAt(report, repo).verdict };
}

describe("Cline's history sources: the line each refused source gets", () => {
  it('state/taskHistory.json: the file, then its items in order', async () => {
    const { s, repo } = scene();
    const file = path.join(s.gs, 'state', 'taskHistory.json');
    const cases: Array<[string, string]> = [
      ['{"items": []}', 'not a JSON list of history items'],
      ['"tasks"', 'not a JSON list of history items'],
      [`[{"id": "${ID}"}, 7]`, 'a history item is not a JSON object'],
      [`[[], {"id": "${ID}"}]`, 'a history item is not a JSON object'],
      ['[{"ts": 1}]', 'a history item has no id'],
      ['[{"id": null}]', 'a history item has no id'],
      ['[{"id": true}, 7]', 'a history item has no id'],
    ];
    for (const [text, line] of cases) {
      writeFileSync(file, text);
      expect(await outcome(s, repo)).toEqual({ error: `${file}: ${line}`, verdict: 'refused' });
    }
  });

  it("a state database's taskHistory: the row's value, then its items", async () => {
    const { s, repo } = scene();
    writeTaskHistory(s.gs, []);
    const rows: Array<[unknown, string]> = [
      [{ taskHistory: { [ID]: {} } }, `${s.stateDb}: taskHistory is not a list of history items`],
      [{ taskHistory: 'x' }, `${s.stateDb}: taskHistory is not a list of history items`],
      [{ taskHistory: ['x'] }, `${s.stateDb} (taskHistory): a history item is not a JSON object`],
      [{ taskHistory: [{ id: [ID] }] }, `${s.stateDb} (taskHistory): a history item has no id`],
    ];
    for (const [row, error] of rows) {
      writeStateDb(s.stateDb, { [CLINE_ID]: row });
      expect(await outcome(s, repo)).toEqual({ error, verdict: 'refused' });
    }
  });

  it("the standalone host's globalState.json: an object, whose taskHistory is a list", async () => {
    const s = clineScene();
    const data = path.join(s.home, '.cline', 'data');
    const repo = workspaceRepo(data, path.join(s.projects, 'a'), [ID]);
    const file = path.join(data, 'globalState.json');
    const cases: Array<[string, string]> = [
      ['[]', `${file}: not a JSON object`],
      ['null', `${file}: not a JSON object`],
      ['{"taskHistory": 5}', `${file}: taskHistory is not a list of history items`],
      ['{"taskHistory": [{}]}', `${file} (taskHistory): a history item has no id`],
    ];
    for (const [text, error] of cases) {
      writeFileSync(file, text);
      settle(s);
      const { report } = await runCline(s, { reportOnly: true });
      expect(report.providers.find((root) => root.root === data)?.error).toBe(error);
      expect(itemAt(report, repo).verdict).toBe('refused');
    }
  });

  it('takes an id of text or a number, and any other value of the folders and of the keys it does not read', async () => {
    const { s, repo, cwd } = scene();
    const named = [
      [historyItem(ID, 1 as unknown as string)],
      [{ id: Number(ID), cwdOnTaskInitialization: cwd, shadowGitConfigWorkTree: { x: 1 }, ts: 'now' }],
      [{ id: ID, shadowGitConfigWorkTree: '' }],
    ];
    for (const items of named) {
      writeTaskHistory(s.gs, items);
      expect(await outcome(s, repo)).toEqual({ error: undefined, verdict: 'kept' });
    }
    writeStateDb(s.stateDb, { [CLINE_ID]: { taskHistory: null } });
    writeFileSync(path.join(s.gs, 'state', 'taskHistory.json'), `[{"id": 1e999}, {"id": ""}]`);
    expect(await outcome(s, repo)).toMatchObject({ error: undefined });
  });
});
