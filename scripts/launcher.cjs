#!/usr/bin/env node
// dist/cli.js, the command: scripts/bundle.mjs copies this file there and fills in the version.
// It is CommonJS because an ES module entry costs Node's module loader even to print one line.
// `--version` is answered here without loading anything; every other command runs the bundle
// from its code cache (./chunks/code-cache.cjs).
'use strict';

const VERSION = '@VERSION@';

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') process.stdout.write(`${VERSION}\n`);
else
  try {
    require('./chunks/code-cache.cjs').startBundle(__dirname);
  } catch (err) {
    // One line: a missing module's message goes on with the stack of requires.
    process.stderr.write(`agent-janitor: ${String(err?.message).split('\n')[0]}\n`);
    process.exitCode = 1;
  }
