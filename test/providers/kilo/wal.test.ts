import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backdate } from '../../helpers/fs-fixtures.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { committed, contentsOf, killedWriter, sizeOf } from '../../helpers/wal.js';
import { kiloPaths, makeKiloDb } from './fixtures.js';

/**
 * opencode's and Kilo's databases: the kilo provider reads them (read-only) for its records, and
 * their logs are checkpointed as an item of their own.
 */
describe("opencode's and Kilo's SQLite logs", () => {
  it('are checkpointed once no process holds them, the records read as before, every row kept', async () => {
    const home = path.join(tempDir('aj-kilo-wal-'), 'home');
    const opencode = kiloPaths(home, 'opencode');
    const kilo = kiloPaths(home, 'kilo');
    const projects = [{ id: 'p1', worktree: '/work/app' }];
    const databases = [
      makeKiloDb(path.join(opencode.data, 'opencode.db'), { projects }),
      makeKiloDb(path.join(kilo.data, 'kilo-beta.db'), { projects }),
    ];
    for (const db of databases) await killedWriter(db);
    // An hour old: the log's own newest write is what counts, the shared memory being rewritten by
    // every read of a database, this tool's own reads of it for its records included.
    const hourAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const db of databases) for (const file of [db, `${db}-wal`]) backdate(file, hourAgo);
    const run = () =>
      pass({
        dir: tempDir('aj-kilo-wal-run-'),
        config: { homes: [home], minAge: '1h', reclaim: { walMinBytes: '1MiB' } },
        only: ['kilo'],
        env: { HOME: '/nonexistent-home' },
      });

    const report = await run();
    for (const db of databases) {
      const item = itemAt(report.report, `${db}-wal`);
      expect(`${item.verdict} ${item.reason}`).toBe('deleted wal-left-behind');
      expect(item.provider).toBe('kilo');
      expect(item.detail).toContain(path.basename(db).startsWith('opencode') ? 'opencode is not' : 'Kilo Code is not');
      expect(sizeOf(`${db}-wal`)).toBeNull();
      expect(contentsOf(db)).toEqual(committed());
      const read = new Database(db, { readonly: true });
      expect(read.prepare('SELECT id, worktree FROM project').all()).toEqual([{ id: 'p1', worktree: '/work/app' }]);
      read.close();
    }
    expect(report.report.providers.every((root) => root.ok)).toBe(true);
  });
});
