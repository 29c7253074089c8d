// Bundles the CLI into dist/chunks/cli.js (and a chunk per lazily imported command), so a start
// reads a few modules instead of hundreds, and writes dist/cli.js, the command, as a small
// CommonJS launcher: `--version` answers there, and anything else imports the bundle. An ES module
// entry costs Node's ES module loader even for `--version` (1.08-1.12 x `node -e 0` on the bench
// machine for an entry that only writes a line, 1.00-1.02 x as CommonJS). tsc has already compiled
// every module into dist/ (the type check, the Kilo heartbeat worker, the modules the bench probes
// import): those stay ES modules through a package.json of their own in each of dist/'s folders.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

/** The version is the package's, written into the bundle (the module reads package.json beside it). */
const versionInline = {
  name: 'version-inline',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]core[\\/]version\.ts$/ }, () => ({
      contents: `export const VERSION = ${JSON.stringify(version)};\n`,
      loader: 'ts',
    }));
  },
};

const dist = new URL('dist/', root);
// Chunks of earlier builds would otherwise pile up beside this one's.
rmSync(new URL('chunks/', dist), { recursive: true, force: true });

await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  entryNames: 'chunks/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The native SQLite addon is loaded from node_modules; pino finds its worker files there;
  // prom-client's modules require each other in a cycle that a bundle does not keep intact.
  external: ['better-sqlite3', 'pino', 'pino-pretty', 'prom-client'],
  // Help text is ASCII: its layout needs no Unicode width tables.
  alias: { 'string-width': './src/util/text-width.ts' },
  // Dependencies that are CommonJS call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  plugins: [versionInline],
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const asModule = `${JSON.stringify({ type: 'module' })}\n`;
writeFileSync(new URL('package.json', dist), `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const entry of readdirSync(dist, { withFileTypes: true }))
  if (entry.isDirectory()) writeFileSync(new URL(`${entry.name}/package.json`, dist), asModule);
// tsc's own dist/cli.js (and its map) give way to the launcher.
rmSync(new URL('cli.js.map', dist), { force: true });
writeFileSync(
  new URL('cli.js', dist),
  `#!/usr/bin/env node
'use strict';
// Written by scripts/bundle.mjs. What yargs prints for --version, without loading anything.
const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') process.stdout.write(${JSON.stringify(`${version}\n`)});
else
  import('./chunks/cli.js').catch((err) => {
    process.stderr.write(\`agent-janitor: \${err && err.message}\\n\`);
    process.exitCode = 1;
  });
`,
);
