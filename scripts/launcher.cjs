#!/usr/bin/env node
// dist/cli.js, the command: scripts/bundle.mjs copies this file there and fills in the version.
// It is CommonJS because an ES module entry costs Node's module loader even to print one line.
// `--version` is answered here without loading anything. Every other command runs the bundle,
// dist/chunks/cli.cjs, compiled with the V8 code cache the build recorded beside it: Node 20 has no
// compile cache of its own, and compiling the bundle's 1 MB costs a pass more than its own work
// when there is little to do.
'use strict';

const VERSION = '@VERSION@';
const DIGEST_BYTES = 32;

const fs = require('node:fs');
const path = require('node:path');

const bundleFile = (dir) => path.join(dir, 'chunks', 'cli.cjs');
const cacheFile = (dir) => path.join(dir, 'chunks', 'cli.code-cache');

/** SHA-256 of the bundle's bytes and the cached data together. */
function digestOf(code, data) {
  return require('node:crypto').createHash('sha256').update(code).update(data).digest();
}

/**
 * The cached data, only if it was recorded from this very bundle. V8 checks a cache against the
 * length of the source it was made from, not its text (a bundle changed in place to one of the
 * same length would run the old code), and a release build does not checksum the data.
 */
function readProvenCache(file, code) {
  let content;
  try {
    content = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (content.length <= DIGEST_BYTES) return undefined;
  const data = content.subarray(DIGEST_BYTES);
  return digestOf(code, data).equals(content.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

/** The bundle as Node's CommonJS loader would compile it, with the cached data if given. */
function compileBundle(file, code, cachedData) {
  const { Script } = require('node:vm');
  return new Script(require('node:module').wrap(code.toString('utf8')), { filename: file, cachedData });
}

/** Written whole or not at all: a reader sees the old cache, the new one, or none. */
function writeCache(file, code, script) {
  const data = script.createCachedData();
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, Buffer.concat([digestOf(code, data), data]));
  fs.renameSync(temporary, file);
}

function start(dir) {
  const file = bundleFile(dir);
  const code = fs.readFileSync(file);
  // Set by the build alone: after a pass, the cache holds every function that pass compiled.
  const recording = process.env.AGENT_JANITOR_RECORD_CODE_CACHE === '1';
  const script = compileBundle(file, code, recording ? undefined : readProvenCache(cacheFile(dir), code));
  if (recording) process.once('exit', () => writeCache(cacheFile(dir), code, script));
  const module = { exports: {} };
  script.runInThisContext()(
    module.exports,
    require('node:module').createRequire(file),
    module,
    file,
    path.dirname(file),
  );
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length === 1 && args[0] === '--version') process.stdout.write(`${VERSION}\n`);
  else
    try {
      start(__dirname);
    } catch (err) {
      process.stderr.write(`agent-janitor: ${err?.message}\n`);
      process.exitCode = 1;
    }
} else module.exports = { bundleFile, cacheFile, compileBundle, readProvenCache };
