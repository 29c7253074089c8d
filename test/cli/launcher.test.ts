import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const DIST = path.dirname(CLI);
const VERSION = JSON.parse(readFileSync(path.join(DIST, '..', 'package.json'), 'utf8')).version as string;

describe('dist/cli.js, the launcher written by scripts/bundle.mjs', () => {
  it('answers --version without loading the bundle, and names a bundle that will not load in one line', () => {
    // The launcher and its package.json alone, without dist/chunks/.
    const alone = tempDir('aj-launcher-');
    copyFileSync(CLI, path.join(alone, 'cli.js'));
    copyFileSync(path.join(DIST, 'package.json'), path.join(alone, 'package.json'));
    const cli = path.join(alone, 'cli.js');

    expect(execFileSync(process.execPath, [cli, '--version'], { encoding: 'utf8' })).toBe(`${VERSION}\n`);
    const run = spawnSync(process.execPath, [cli, 'run', '--report-only'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^agent-janitor: Cannot find module .*chunks/),
    ]);
  });

  it('is CommonJS, while the modules tsc compiled beside it stay ES modules', () => {
    expect(JSON.parse(readFileSync(path.join(DIST, 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    for (const folder of ['chunks', 'core', 'providers', 'safety'])
      expect(JSON.parse(readFileSync(path.join(DIST, folder, 'package.json'), 'utf8'))).toEqual({ type: 'module' });
    // The same version as yargs prints through the bundle.
    expect(execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' })).toBe(`${VERSION}\n`);
    expect(execFileSync(process.execPath, [CLI, '--version', '--help'], { encoding: 'utf8' })).toContain(
      'agent-janitor',
    );
  });
});
