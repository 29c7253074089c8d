import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { removeTree } from '../../src/safety/removal/remove.js';

const made: string[] = [];

/** A fresh temp folder, removed after the test (deep trees and odd modes included). */
export function tempDir(prefix = 'aj-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  // The tool's own remover: Node's recursive rm overflows its stack on a tree thousands deep.
  for (const dir of made.splice(0)) removeTree(dir);
});
