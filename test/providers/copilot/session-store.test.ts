import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backdate } from '../../helpers/fs-fixtures.js';
import { itemAt } from '../../helpers/pass.js';
import { committed, contentsOf, killHard, killedWriter, sizeOf, startWalProcess } from '../../helpers/wal.js';
import { copilotWorld, runCopilot } from './fixtures.js';

/**
 * Copilot CLI's `session-store.db` (SQLite, WAL mode, held open by every Copilot CLI process):
 * its write-ahead log, left behind by a Copilot that was killed, is checkpointed without losing a
 * row; while a process holds the store it is refused in-use, its bytes held.
 */
describe("Copilot CLI's session store", () => {
  const config = { reclaim: { walMinBytes: '1MiB' } };
  const hourAgo = () => new Date(Date.now() - 2 * 3_600_000);

  it('is checkpointed once no process holds it, every committed row kept', async () => {
    const w = copilotWorld();
    const store = path.join(w.copilot, 'session-store.db');
    await killedWriter(store);
    for (const file of [store, `${store}-wal`, `${store}-shm`]) backdate(file, hourAgo());

    const { report } = await runCopilot(w, { config });

    expect(itemAt(report, `${store}-wal`)).toMatchObject({
      provider: 'copilot',
      kind: 'wal-checkpoint',
      verdict: 'deleted',
      reason: 'wal-left-behind',
    });
    expect(sizeOf(`${store}-wal`)).toBeNull();
    expect(contentsOf(store)).toEqual(committed());
  });

  it('is refused in-use, its bytes held, while a Copilot holds it; nothing written', async () => {
    const w = copilotWorld();
    const store = path.join(w.copilot, 'session-store.db');
    const writer = await startWalProcess(store, 'commit');
    const before = sizeOf(`${store}-wal`);

    const { report } = await runCopilot(w, { config });

    const item = itemAt(report, `${store}-wal`);
    expect(item).toMatchObject({ provider: 'copilot', verdict: 'refused', reason: 'in-use' });
    expect(item.detail).toContain('quit or restart them');
    expect(sizeOf(`${store}-wal`)).toBe(before);
    await killHard(writer);
  });
});
