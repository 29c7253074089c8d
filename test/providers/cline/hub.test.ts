import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put } from '../../helpers/fs-fixtures.js';
import { itemAt, pass } from '../../helpers/pass.js';
import { spawnLiving } from '../../helpers/processes.js';
import { tempDir } from '../../helpers/temp.js';
import { committed, contentsOf, killedWriter, killHard, sizeOf } from '../../helpers/wal.js';

/**
 * The Cline hub's databases (`~/.cline/data/db`, the Cline CLI and SDK): their logs are
 * checkpointed while no hub runs, as its discovery record (`~/.cline/data/locks/hub/production.json`)
 * tells by its pid.
 */
describe("the Cline hub's SQLite logs", () => {
  it('are kept while the hub its discovery record names runs, and checkpointed once it is gone', async () => {
    const root = tempDir('aj-cline-hub-');
    const home = path.join(root, 'home');
    const data = path.join(home, '.cline', 'data');
    const events = path.join(data, 'db', 'hub-events-hub-production.db');
    const runs = path.join(data, 'db', 'hub-runs-hub-production.db');
    // Not the hub's: Cline 4's session database beside them is the provider's record, only ever read.
    const sessions = path.join(data, 'db', 'sessions.db');
    put(sessions, '');
    await killedWriter(events);
    await killedWriter(runs);
    const hub = spawnLiving('sleep', ['600']);
    const record = path.join(data, 'locks', 'hub', 'production.json');
    const write = (pid: number) =>
      put(
        record,
        JSON.stringify({
          hubId: 'hub-production',
          protocolVersion: '1',
          authToken: 'x',
          host: '127.0.0.1',
          port: 25463,
          url: 'ws://127.0.0.1:25463/hub',
          pid,
          startedAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        }),
      );
    write(hub.pid as number);
    const run = (dir: string) =>
      pass({
        dir,
        config: { homes: [home], minAge: '0s', reclaim: { walMinBytes: '1MiB' } },
        only: ['cline'],
        env: { HOME: '/nonexistent-home' },
      });

    const running = await run(tempDir('aj-cline-hub-run-'));
    for (const db of [events, runs]) {
      const item = itemAt(running.report, `${db}-wal`);
      expect(`${item.verdict} ${item.reason}`).toBe('refused in-use');
      expect(item.detail).toContain(`the Cline hub runs (process ${hub.pid}, named by its discovery record ${record})`);
      expect(sizeOf(`${db}-wal`)).toBe(item.bytes);
    }
    expect(running.report.items.map((item) => item.path)).not.toContain(`${sessions}-wal`);

    // A record that says nothing of a pid says nothing of the hub: it keeps them too.
    writeFileSync(record, '{ "hubId": "hub-production" }');
    const unknown = await run(tempDir('aj-cline-hub-run-'));
    expect(itemAt(unknown.report, `${events}-wal`).detail).toContain('names no pid');

    await killHard(hub);
    write(hub.pid as number);
    const gone = await run(tempDir('aj-cline-hub-run-'));
    for (const db of [events, runs]) {
      const item = itemAt(gone.report, `${db}-wal`);
      expect(`${item.verdict} ${item.reason}`).toBe('deleted wal-left-behind');
      expect(sizeOf(`${db}-wal`)).toBeNull();
      expect(contentsOf(db)).toEqual(committed());
    }
  });
});
