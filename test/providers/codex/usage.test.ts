import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate, daysAgo, put } from '../../helpers/fs-fixtures.js';
import { inventory } from '../../helpers/inventory.js';
import { codexWorld, runCodex, threadDatabase, threadId } from './fixtures.js';

describe('codex: what is only reported', () => {
  it('reports conversations with sizes per thread (archived marked), the databases and old app server releases, and deletes none', async () => {
    const w = codexWorld();
    const [big, small, archived] = [threadId(), threadId(), threadId()];
    const rollout = (folder: string, id: string, bytes: number) =>
      put(path.join(folder, `rollout-2026-11-27T10-00-00-${id}.jsonl`), 'x'.repeat(bytes));
    const sessions = path.join(w.codexHome, 'sessions');
    rollout(path.join(sessions, '2026', '11', '27'), big, 5000);
    rollout(path.join(sessions, '2026', '11', '28'), small, 100);
    const archivedSessions = path.join(w.codexHome, 'archived_sessions');
    rollout(archivedSessions, archived, 2048);
    const snapshots = path.join(w.codexHome, 'shell_snapshots');
    put(path.join(snapshots, `${big}.sh`), 'export PATH=/usr/bin\n');
    threadDatabase(w, [{ id: big, cwd: w.repo }]);
    const releases = path.join(w.codexHome, 'packages', 'app-server-daemon', 'releases');
    const old = put(path.join(releases, '0.168.0', 'codex-app-server'), 'old');
    put(path.join(releases, '0.169.0', 'codex-app-server'), 'live');
    symlinkSync('0.169.0', path.join(releases, 'current'));
    backdate(w.codexHome, daysAgo(3));
    const before = inventory(w.root);

    const result = await runCodex(w);

    const item = (folder: string) => result.report.items.find((each) => each.path === folder);
    expect(item(sessions)).toMatchObject({ kind: 'task-folder', verdict: 'kept', reason: 'codex-conversations' });
    expect(item(sessions)?.detail).toContain('conversations of 2 Codex threads');
    expect(item(sessions)?.detail).toContain(`the largest: ${big} 4.9 KiB, ${small} 100 B`);
    expect(item(sessions)?.detail).toContain('`codex delete <thread id>`');
    expect(item(sessions)?.detail).toMatch(/Codex's databases in .*: state_5\.sqlite \d/);
    expect(item(archivedSessions)?.detail).toContain(`${archived} (archived) 2.0 KiB`);
    expect(item(snapshots)).toMatchObject({ verdict: 'kept', reason: 'codex-conversations' });
    expect(item(path.dirname(old))).toMatchObject({ kind: 'staging', verdict: 'kept', reason: 'codex-release' });
    expect(item(path.dirname(old))?.detail).toContain('`current` names 0.169.0');
    expect(item(path.join(releases, '0.169.0'))).toBeUndefined();
    expect(result.report.totals.deleted).toBe(0);
    const after = inventory(w.root);
    for (const [key, entry] of before) if (!key.includes('state_5.sqlite')) expect(after.get(key), key).toEqual(entry);
  });
});
