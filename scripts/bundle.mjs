// Bundles the CLI into one CommonJS file, dist/chunks/cli.cjs, so a start reads one module, and
// copies the launcher (scripts/launcher.cjs) to dist/cli.js, the command, with what starts the
// bundle from its code cache (scripts/code-cache.cjs) in dist/chunks/. Then it runs one
// report-only pass over an empty home through the launcher to record V8's code cache of the
// bundle (dist/chunks/cli.code-cache), and checks that V8 accepts it. tsc has already compiled
// every module into dist/ (the type check, the Kilo heartbeat worker, the modules the bench probes
// import): those stay ES modules through a package.json of their own in each of dist/'s folders.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  absWorkingDir: fileURLToPath(root),
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/chunks/cli.cjs',
  bundle: true,
  // One script, so one code cache: a command's modules are still run only when it is (esbuild
  // wraps a lazily imported module in a function called at its import).
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // SQLite's native addon is loaded from node_modules by its path (src/util/sqlite.ts), so the
  // `bindings` package that would search for it is never called; pino-pretty (for a person at a
  // terminal) stays there with its colour and date libraries; prom-client's modules require each
  // other in a cycle that a bundle does not keep intact. pino itself is bundled: no pass starts a
  // transport, the one part of it that needs its files on disk.
  external: ['bindings', 'pino-pretty', 'prom-client'],
  // The modules that find files beside themselves (the Kilo heartbeat worker, SQLite's driver)
  // get the bundle's own address.
  define: { 'import.meta.url': '__bundle_url' },
  banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [versionInline],
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// The launcher runs the bundle as a script compiled from a code cache, and such a script has no
// import() (Node 20 loses the callback with the cache): what the bundle loads from node_modules it
// must load with require().
const bundled = readFileSync(new URL('chunks/cli.cjs', dist), 'utf8');
if (/\bimport\(/.test(bundled))
  throw new Error('dist/chunks/cli.cjs calls import(): load that module with createRequire(import.meta.url) instead');

const asModule = `${JSON.stringify({ type: 'module' })}\n`;
writeFileSync(new URL('package.json', dist), `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const entry of readdirSync(dist, { withFileTypes: true }))
  if (entry.isDirectory()) writeFileSync(new URL(`${entry.name}/package.json`, dist), asModule);
// tsc's own dist/cli.js (and its map) give way to the launcher.
rmSync(new URL('cli.js.map', dist), { force: true });
copyFileSync(new URL('scripts/launcher.cjs', root), new URL('cli.js', dist));
copyFileSync(new URL('scripts/code-cache.cjs', root), new URL('chunks/code-cache.cjs', dist));

recordCodeCache(fileURLToPath(new URL('cli.js', dist)));

/** One report-only pass over an empty home, then a check that V8 takes the cache it left. */
function recordCodeCache(cli) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'agent-janitor-build-'));
  try {
    const config = path.join(scratch, 'agent-janitor.yaml');
    mkdirSync(path.join(scratch, 'home'));
    writeFileSync(
      config,
      `homes: [${JSON.stringify(path.join(scratch, 'home'))}]\nreportDir: ${JSON.stringify(path.join(scratch, 'reports'))}\n`,
    );
    const pass = spawnSync(
      process.execPath,
      [cli, 'run', '--report-only', '--config', config, '--log-level', 'error'],
      {
        env: { ...process.env, AGENT_JANITOR_RECORD_CODE_CACHE: '1' },
        encoding: 'utf8',
      },
    );
    if (pass.status !== 0)
      throw new Error(`recording the code cache: the pass exited ${pass.status}: ${pass.stderr.trim()}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const dir = path.dirname(cli);
  const { bundleFile, cacheFile, compileBundle, readProvenCache, stampFile, stampHolds } = createRequire(
    import.meta.url,
  )(path.join(dir, 'chunks', 'code-cache.cjs'));
  const code = readFileSync(bundleFile(dir));
  // Without the stamp's identities, this proves the cache by its digest.
  const cachedData = readProvenCache(cacheFile(dir), code);
  if (!cachedData || compileBundle(bundleFile(dir), code, cachedData).cachedDataRejected)
    throw new Error(`${cacheFile(dir)}: V8 does not accept the code cache just recorded`);
  if (!stampHolds(dir)) throw new Error(`${stampFile(dir)}: does not match the bundle and the cache just recorded`);
}
