import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettled } from '../../../src/providers/watchfire/stable-read.js';
import { daysAgo } from '../../helpers/fs-fixtures.js';
import { tempDir } from '../../helpers/temp.js';

describe('readSettled', () => {
  it('reads an old file at once and answers null for a missing one', async () => {
    const file = path.join(tempDir(), 'projects.yaml');
    expect(await readSettled(file)).toBeNull();
    writeFileSync(file, 'version: 1\n');
    utimesSync(file, daysAgo(1), daysAgo(1));
    const started = Date.now();
    expect(await readSettled(file)).toBe('version: 1\n');
    expect(Date.now() - started).toBeLessThan(90);
  });

  it('waits out a file that is being rewritten in place and answers its final content', async () => {
    const file = path.join(tempDir(), 'projects.yaml');
    writeFileSync(file, 'version: 1\nprojects: []\n');
    let round = 0;
    // A writer truncating and rewriting the file every 30 ms, for about 400 ms.
    const writer = setInterval(() => {
      round += 1;
      writeFileSync(file, round % 2 === 0 ? '' : `version: 1\nprojects:\n    - project_id: p${round}\n      name: n\n`);
      if (round >= 13) {
        clearInterval(writer);
        writeFileSync(file, 'version: 1\nprojects: [] # final\n');
      }
    }, 30);
    const text = await readSettled(file);
    clearInterval(writer);
    expect(round).toBeGreaterThanOrEqual(13);
    expect(text).toBe('version: 1\nprojects: [] # final\n');
  });

  it('refuses a FIFO in place of the file instead of waiting on it', async () => {
    const file = path.join(tempDir(), 'projects.yaml');
    execFileSync('mkfifo', [file]);
    await expect(readSettled(file)).rejects.toThrow(/not a regular file/);
  });
});
