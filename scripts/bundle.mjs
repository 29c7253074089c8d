// Bundles the CLI into dist/cli.js (and a chunk per lazily imported command), so a start reads a
// few modules instead of hundreds. tsc has already compiled every module into dist/ (the type
// check, and the modules the bench probes import); this overwrites only its dist/cli.js.
import { readFileSync } from 'node:fs';
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

await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  entryNames: '[name]',
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
