import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectLock } from '../../../src/providers/kilo/lock.js';
import { tempDir } from '../../helpers/temp.js';

/** A fresh lock (its heartbeat just written) whose meta.json holds `text`: the holder it names, if any. */
async function holderOf(text: string): Promise<unknown> {
  const lockDir = path.join(tempDir('aj-kilo-meta-'), 'lock');
  mkdirSync(lockDir);
  writeFileSync(path.join(lockDir, 'heartbeat'), '');
  writeFileSync(path.join(lockDir, 'meta.json'), text);
  const state = await inspectLock(lockDir, Date.now());
  expect(state.state).toBe('fresh');
  return 'pid' in state ? { pid: state.pid, hostname: state.hostname } : null;
}

const meta = (fields: Record<string, unknown>) =>
  JSON.stringify({ token: 't', pid: 4242, hostname: 'box', createdAt: '2026-11-30T06:00:00.000Z', ...fields });

describe("Kilo's lock meta.json: the holder it names", () => {
  it('names the holder of a meta.json as Kilo writes it, whatever createdAt holds, other keys beside', async () => {
    expect(await holderOf(meta({}))).toEqual({ pid: 4242, hostname: 'box' });
    for (const createdAt of [null, 0, '', { at: 1 }]) {
      expect(await holderOf(meta({ createdAt, other: [1] }))).toEqual({ pid: 4242, hostname: 'box' });
    }
    expect(await holderOf(meta({ pid: -1.5, hostname: '' }))).toEqual({ pid: -1.5, hostname: '' });
  });

  it('names none for a file that is not Kilo’s shape: the lock is still held', async () => {
    const { createdAt: _, ...withoutCreatedAt } = JSON.parse(meta({})) as Record<string, unknown>;
    for (const text of [
      JSON.stringify(withoutCreatedAt),
      meta({ token: 1 }),
      meta({ pid: '4242' }),
      meta({ hostname: null }),
      meta({}).replace('4242', '1e999'),
      '[]',
      '"t"',
      '{"token": "t"',
      '',
    ]) {
      expect(await holderOf(text)).toBeNull();
    }
  });
});
