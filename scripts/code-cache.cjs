// dist/chunks/code-cache.cjs (scripts/bundle.mjs copies it there): runs the bundle,
// dist/chunks/cli.cjs, compiled with the V8 code cache the build recorded beside it. Node 20 has
// no compile cache of its own, and compiling the bundle's megabyte costs a pass more than its own
// work when there is little to do.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const DIGEST_BYTES = 32;

const bundleFile = (dist) => path.join(dist, 'chunks', 'cli.cjs');
const cacheFile = (dist) => path.join(dist, 'chunks', 'cli.code-cache');

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

/**
 * The bundle as Node's CommonJS loader would compile it, with the cached data if given. A script
 * compiled from a code cache cannot import() in Node 20 (the callback is lost with the cache): the
 * build refuses a bundle that calls it.
 */
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

/** Runs the bundle of `dist` as the main program. */
function startBundle(dist) {
  const file = bundleFile(dist);
  const code = fs.readFileSync(file);
  // Set by the build alone: after a pass, the cache holds every function that pass compiled.
  const recording = process.env.AGENT_JANITOR_RECORD_CODE_CACHE === '1';
  const script = compileBundle(file, code, recording ? undefined : readProvenCache(cacheFile(dist), code));
  if (recording) process.once('exit', () => writeCache(cacheFile(dist), code, script));
  const module = { exports: {} };
  const bundleRequire = require('node:module').createRequire(file);
  script.runInThisContext()(module.exports, bundleRequire, module, file, path.dirname(file));
}

module.exports = { bundleFile, cacheFile, compileBundle, readProvenCache, startBundle };
