import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const DIST = path.dirname(CLI);
const VERSION = JSON.parse(readFileSync(path.join(DIST, '..', 'package.json'), 'utf8')).version as string;

/** What dist/chunks/code-cache.cjs exports. */
interface CodeCache {
  bundleFile(dir: string): string;
  cacheFile(dir: string): string;
  stampFile(dir: string): string;
  compileBundle(file: string, code: Buffer, cachedData?: Buffer): Script;
  readProvenCache(file: string, code: Buffer, bundleIdentity?: string, stamp?: string): Buffer | undefined;
  readStamp(file: string): string | undefined;
  readWithIdentity(file: string): { content: Buffer; identity: string };
  stampHolds(dir: string): boolean;
}
const CODE_CACHE = path.join(DIST, 'chunks', 'code-cache.cjs');
const codeCache = createRequire(import.meta.url)(CODE_CACHE) as CodeCache;

/** The launcher and its package.json in a folder of their own; with a bundle, the bundle and its starter in chunks/. */
function launcherWith(bundle?: string): string {
  const dir = tempDir('aj-launcher-');
  copyFileSync(CLI, path.join(dir, 'cli.js'));
  copyFileSync(path.join(DIST, 'package.json'), path.join(dir, 'package.json'));
  if (bundle !== undefined) {
    mkdirSync(path.join(dir, 'chunks'));
    copyFileSync(CODE_CACHE, path.join(dir, 'chunks', 'code-cache.cjs'));
    writeFileSync(codeCache.bundleFile(dir), bundle);
  }
  return dir;
}

/** A bundle that exports its word, and prints it when run as the command (SAY is set for the child). */
const saying = (word: string) => `module.exports = "${word}"; if (process.env.SAY) process.stdout.write("${word}\\n");`;

const node = (dir: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [path.join(dir, 'cli.js'), 'run'], {
    encoding: 'utf8',
    env: { ...process.env, SAY: '1', ...env },
  });

/** Runs a bundle the way the launcher does, in this process, and returns what it exported. */
function exportsOf(dir: string, code: Buffer, cachedData: Buffer | undefined): unknown {
  const file = codeCache.bundleFile(dir);
  const module = { exports: {} as unknown };
  codeCache.compileBundle(file, code, cachedData).runInThisContext()(module.exports, require, module, file, dir);
  return module.exports;
}

describe('dist/cli.js, the launcher written by scripts/bundle.mjs', () => {
  it('names a bundle that will not load in one line, whatever the command line', () => {
    const alone = launcherWith();
    const cli = path.join(alone, 'cli.js');

    // The bundle reads every command line, --version included.
    for (const args of [['run', '--report-only'], ['--version']]) {
      const run = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^agent-janitor: Cannot find module '\.\/chunks\/code-cache\.cjs'$/),
      ]);
    }

    // The starter without the bundle it starts.
    mkdirSync(path.join(alone, 'chunks'));
    copyFileSync(CODE_CACHE, path.join(alone, 'chunks', 'code-cache.cjs'));
    const noBundle = spawnSync(process.execPath, [cli, 'run', '--report-only'], { encoding: 'utf8' });
    expect(noBundle.status).toBe(1);
    expect(noBundle.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^agent-janitor: ENOENT: no such file or directory, open '.*chunks\/cli\.cjs'$/),
    ]);
  });

  it('is CommonJS, while the modules tsc compiled beside it stay ES modules', () => {
    expect(JSON.parse(readFileSync(path.join(DIST, 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    for (const folder of ['chunks', 'core', 'providers', 'safety'])
      expect(JSON.parse(readFileSync(path.join(DIST, folder, 'package.json'), 'utf8'))).toEqual({ type: 'module' });
    // Through the launcher and the bundle; --help wins.
    expect(execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' })).toBe(`${VERSION}\n`);
    expect(execFileSync(process.execPath, [CLI, 'run', '--version'], { encoding: 'utf8' })).toBe(`${VERSION}\n`);
    expect(execFileSync(process.execPath, [CLI, '--version', '--help'], { encoding: 'utf8' })).toContain(
      'agent-janitor',
    );
    // Started by a process manager that requires the command instead of running it (pm2 does).
    const wrapper = path.join(tempDir('aj-launcher-'), 'wrapper.cjs');
    writeFileSync(wrapper, `require(${JSON.stringify(CLI)});\n`);
    expect(execFileSync(process.execPath, [wrapper, '--help'], { encoding: 'utf8' })).toContain('Commands:');
  });

  it('starts the build’s bundle from the code cache recorded with it, which V8 accepts', () => {
    const code = readFileSync(codeCache.bundleFile(DIST));
    const cachedData = codeCache.readProvenCache(codeCache.cacheFile(DIST), code);
    expect(cachedData?.length).toBeGreaterThan(100_000);
    expect(codeCache.compileBundle(codeCache.bundleFile(DIST), code, cachedData).cachedDataRejected).toBe(false);
  });

  it('never runs a cache recorded from another bundle of the same length, which V8 itself would run', () => {
    const dir = launcherWith(saying('old'));
    expect(node(dir, { AGENT_JANITOR_RECORD_CODE_CACHE: '1' }).stdout).toBe('old\n');
    const recorded = readFileSync(codeCache.cacheFile(dir));

    const changed = saying('new');
    writeFileSync(codeCache.bundleFile(dir), changed);
    expect(codeCache.stampHolds(dir)).toBe(false);
    const code = Buffer.from(changed);
    // The premise: V8 checks the length of the source a cache was made from, not its text.
    const stale = recorded.subarray(32);
    expect(codeCache.compileBundle(codeCache.bundleFile(dir), code, stale).cachedDataRejected).toBe(false);
    expect(exportsOf(dir, code, stale)).toBe('old');

    expect(codeCache.readProvenCache(codeCache.cacheFile(dir), code)).toBeUndefined();
    expect(node(dir)).toMatchObject({ status: 0, stdout: 'new\n', stderr: '' });
  });

  it('skips the digest only while the stamp of the build still holds for both files', () => {
    expect(codeCache.stampHolds(DIST)).toBe(true);
    const dir = launcherWith(saying('old'));
    expect(node(dir, { AGENT_JANITOR_RECORD_CODE_CACHE: '1' }).stdout).toBe('old\n');
    expect(codeCache.stampHolds(dir)).toBe(true);
    const stamp = codeCache.readStamp(codeCache.stampFile(dir));
    const { identity } = codeCache.readWithIdentity(codeCache.bundleFile(dir));
    const data = readFileSync(codeCache.cacheFile(dir)).subarray(32);
    // Bytes the digest does not match: only a holding stamp lets the cache through unhashed.
    const other = Buffer.from(saying('new'));
    expect(codeCache.readProvenCache(codeCache.cacheFile(dir), other, identity, stamp)).toEqual(data);
    expect(codeCache.readProvenCache(codeCache.cacheFile(dir), other, identity, `${stamp}x`)).toBeUndefined();
    expect(codeCache.readProvenCache(codeCache.cacheFile(dir), other, `${identity}x`, stamp)).toBeUndefined();
    expect(codeCache.readProvenCache(codeCache.cacheFile(dir), other)).toBeUndefined();

    // The same bytes written again (a copy, an unpacked image) move the identity: proven by digest.
    writeFileSync(codeCache.bundleFile(dir), saying('old'));
    expect(codeCache.stampHolds(dir)).toBe(false);
    expect(node(dir)).toMatchObject({ status: 0, stdout: 'old\n', stderr: '' });
    // A cache written again the same way does too.
    writeFileSync(codeCache.cacheFile(dir), readFileSync(codeCache.cacheFile(dir)));
    expect(codeCache.stampHolds(dir)).toBe(false);
  });

  it('compiles without a cache that is damaged, cut short or missing', () => {
    const bundle = saying('ran');
    const dir = launcherWith(bundle);
    node(dir, { AGENT_JANITOR_RECORD_CODE_CACHE: '1' });
    const recorded = readFileSync(codeCache.cacheFile(dir));
    expect(codeCache.readProvenCache(codeCache.cacheFile(dir), Buffer.from(bundle))).toEqual(recorded.subarray(32));

    const damaged = Buffer.from(recorded);
    const last = damaged.length - 1;
    damaged.writeUInt8(damaged.readUInt8(last) ^ 0xff, last);
    for (const content of [damaged, recorded.subarray(0, 32), Buffer.alloc(0)]) {
      writeFileSync(codeCache.cacheFile(dir), content);
      expect(codeCache.readProvenCache(codeCache.cacheFile(dir), Buffer.from(bundle))).toBeUndefined();
      expect(node(dir)).toMatchObject({ status: 0, stdout: 'ran\n', stderr: '' });
    }
  });
});
