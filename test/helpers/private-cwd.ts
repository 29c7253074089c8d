import { chmodSync } from 'node:fs';
import { tempDir } from './temp.js';

/**
 * Runs `work` with the working directory in a folder only root may enter, as a pass started by
 * `sudo -i` in /root would: where a pass starts must never matter to what it can delete.
 */
export async function fromRootOnlyFolder<T>(work: () => Promise<T>): Promise<T> {
  const folder = tempDir('aj-root-only-');
  chmodSync(folder, 0o700);
  const startedIn = process.cwd();
  process.chdir(folder);
  try {
    return await work();
  } finally {
    process.chdir(startedIn);
  }
}
