#!/usr/bin/env node
// dist/cli.js, the command: scripts/bundle.mjs copies this file there. It is CommonJS because an
// ES module entry costs Node's module loader before the first line of the program; it runs the
// bundle from its code cache (./chunks/code-cache.cjs), and the bundle reads the command line.
'use strict';

try {
  require('./chunks/code-cache.cjs').startBundle(__dirname);
} catch (err) {
  // One line: a missing module's message goes on with the stack of requires.
  process.stderr.write(`agent-janitor: ${String(err?.message).split('\n')[0]}\n`);
  process.exitCode = 1;
}
