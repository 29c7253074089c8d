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
const stampFile = (dist) => path.join(dist, 'chunks', 'cli.code-cache.stamp');

/**
 * A file's content cannot change without its ctime moving (every write, truncate or rename sets
 * it to now, and no user can set it back), so a file whose device, inode, size, mtime and ctime
 * are still those the stamp recorded holds the bytes it held then.
 */
function identityOf(fd) {
  const stats = fs.fstatSync(fd, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/** The whole file and, taken after reading it through the same descriptor, its identity. */
function readWithIdentity(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const content = fs.readFileSync(fd);
    return { content, identity: identityOf(fd) };
  } finally {
    fs.closeSync(fd);
  }
}

const stampOf = (bundleIdentity, cacheIdentity) => `${bundleIdentity}\n${cacheIdentity}\n`;

/** SHA-256 of the bundle's bytes and the cached data together. */
function digestOf(code, data) {
  return require('node:crypto').createHash('sha256').update(code).update(data).digest();
}

/**
 * The cached data, only if it was recorded from this very bundle. V8 checks a cache against the
 * length of the source it was made from, not its text (a bundle changed in place to one of the
 * same length would run the old code), and a release build does not checksum the data. The proof
 * is the digest the cache starts with, of the bundle and the data together; it costs a start the
 * hash and node:crypto's loading, about 0.02 s, so the build also leaves a stamp of both files'
 * identities (see identityOf), and while both are unchanged since the build the digest is not
 * computed again. A copied or unpacked build (a container image) has new identities and is proven
 * by its digest, every start.
 */
function readProvenCache(file, code, bundleIdentity, stamp) {
  let read;
  try {
    read = readWithIdentity(file);
  } catch {
    return undefined;
  }
  const { content } = read;
  if (content.length <= DIGEST_BYTES) return undefined;
  const data = content.subarray(DIGEST_BYTES);
  if (bundleIdentity !== undefined && stamp === stampOf(bundleIdentity, read.identity)) return data;
  return digestOf(code, data).equals(content.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

/** The stamp the build left, or undefined. */
function readStamp(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
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

/** Whether the build's stamp still holds for the bundle and the cache of `dist` (the build checks it did). */
function stampHolds(dist) {
  try {
    const stamp = readStamp(stampFile(dist));
    return stamp === stampOf(readWithIdentity(bundleFile(dist)).identity, readWithIdentity(cacheFile(dist)).identity);
  } catch {
    return false;
  }
}

/** Written whole or not at all: a reader sees the old cache, the new one, or none; then the stamp. */
function writeCache(dist, code, bundleIdentity, script) {
  const data = script.createCachedData();
  const file = cacheFile(dist);
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, Buffer.concat([digestOf(code, data), data]));
  fs.renameSync(temporary, file);
  // Taken after the rename, which moves the cache's ctime.
  const { identity } = readWithIdentity(file);
  const stamp = stampFile(dist);
  fs.writeFileSync(`${stamp}.${process.pid}`, stampOf(bundleIdentity, identity));
  fs.renameSync(`${stamp}.${process.pid}`, stamp);
}

/** Runs the bundle of `dist` as the main program. */
function startBundle(dist) {
  const file = bundleFile(dist);
  const { content: code, identity } = readWithIdentity(file);
  // Set by the build alone: after a pass, the cache holds every function that pass compiled.
  const recording = process.env.AGENT_JANITOR_RECORD_CODE_CACHE === '1';
  const cachedData = recording
    ? undefined
    : readProvenCache(cacheFile(dist), code, identity, readStamp(stampFile(dist)));
  const script = compileBundle(file, code, cachedData);
  if (recording) process.once('exit', () => writeCache(dist, code, identity, script));
  const module = { exports: {} };
  const bundleRequire = require('node:module').createRequire(file);
  script.runInThisContext()(module.exports, bundleRequire, module, file, path.dirname(file));
}

module.exports = {
  bundleFile,
  cacheFile,
  compileBundle,
  readProvenCache,
  readStamp,
  readWithIdentity,
  stampFile,
  stampHolds,
  startBundle,
};
