/**
 * The container image, without a Docker engine: the Dockerfile is read, its stages are performed
 * in a clean clone of the committed repository (the build context cut by .dockerignore), every
 * `npm` step run exactly as written, and the runtime stage it leaves must run `agent-janitor
 * --help`, a `demo`, and answer the image's HEALTHCHECK while `serve` runs.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventory } from '../helpers/inventory.js';
import { collect } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import {
  buildContext,
  dockerignoreFilter,
  execForm,
  parseCopy,
  parseDockerfile,
  performCopy,
  type Stage,
} from './dockerfile.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dockerfile = parseDockerfile(readFileSync(path.join(REPO, 'Dockerfile'), 'utf8'));
const byName = (name: string): Stage => {
  const stage = dockerfile.stages.find((s) => s.name === name);
  if (!stage) throw new Error(`the Dockerfile has no stage ${name}`);
  return stage;
};
const runtime = dockerfile.stages[dockerfile.stages.length - 1] as Stage;
const only = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

describe('Dockerfile', () => {
  it('builds every stage from one pinned Node.js LTS slim Debian image', () => {
    const images = new Set(dockerfile.stages.map((stage) => stage.from));
    expect(images.size).toBe(1);
    const [image] = [...images] as [string];
    const match = /^node:(\d+)\.(\d+)\.(\d+)-(bookworm|trixie)-slim$/.exec(image);
    expect(match, `${image} must name an exact version of a slim Debian node image`).not.toBeNull();
    const major = Number(match?.[1]);
    expect(major % 2, 'LTS lines are the even majors').toBe(0);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it('builds with dev dependencies, ships production ones only', () => {
    const runs = (stage: Stage) => only(stage, 'RUN').map((i) => i.args);
    expect(runs(byName('build'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b(?!.*--omit)/), 'npm run build']),
    );
    expect(runs(byName('prod-deps'))).toEqual(expect.arrayContaining([expect.stringMatching(/^npm ci --omit=dev\b/)]));
    expect(runs(runtime).some((run) => run.startsWith('npm '))).toBe(false);
    const copies = only(runtime, 'COPY').map((i) => parseCopy(i.args));
    expect(copies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: 'prod-deps', sources: [expect.stringMatching(/node_modules\/?$/)] }),
        expect.objectContaining({ from: 'build', sources: [expect.stringMatching(/dist\/?$/)] }),
      ]),
    );
    expect(copies.some((copy) => copy.from === 'build' && copy.sources.some((s) => s.includes('node_modules')))).toBe(
      false,
    );
  });

  it('installs git and git-lfs, runs as a non-root user, enters through agent-janitor', () => {
    const packages = aptPackages(runtime);
    expect(packages).toEqual(expect.arrayContaining(['git', 'git-lfs']));
    const user = only(runtime, 'USER').at(-1)?.args ?? 'root';
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    const uid = /^(\d+)/.exec(user)?.[1];
    expect(
      runtime.instructions.some((i) => i.keyword === 'RUN' && i.args.includes(`useradd --system --uid ${uid} `)),
    ).toBe(true);
    const entrypoint = execForm(only(runtime, 'ENTRYPOINT').at(-1)?.args ?? '[]');
    expect(entrypoint.at(-1)).toBe('agent-janitor');
    expect(entrypoint.slice(0, -1)).toEqual(['/usr/bin/tini', '-s', '--']);
    expect(packages).toContain('tini');
  });

  it('has a node-based HEALTHCHECK on /healthz and OCI labels', () => {
    const health = only(runtime, 'HEALTHCHECK').at(-1)?.args ?? '';
    const command = execForm(health.slice(health.indexOf('CMD ') + 4));
    expect(command[0]).toBe('node');
    const script = readFileSync(path.join(REPO, 'deploy/docker/healthcheck.mjs'), 'utf8');
    expect(script).toContain('/healthz');
    expect(script).toMatch(/from 'node:http'/);
    expect(script).not.toMatch(/child_process/);
    const labels = only(runtime, 'LABEL')
      .map((i) => i.args)
      .join(' ');
    for (const key of ['title', 'description', 'version', 'licenses']) {
      expect(labels).toContain(`org.opencontainers.image.${key}=`);
    }
    expect(only(runtime, 'EXPOSE').map((i) => i.args)).toContain('9464');
  });

  it('.dockerignore keeps the sources and leaves out what the build makes or does not need', () => {
    const keep = dockerignoreFilter(readFileSync(path.join(REPO, '.dockerignore'), 'utf8'));
    for (const needed of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'src/cli.ts',
      'scripts/make-executable.mjs',
      'scripts/bundle.mjs',
      'scripts/launcher.cjs',
      'scripts/code-cache.cjs',
      'deploy/docker/healthcheck.mjs',
    ]) {
      expect(keep(needed), needed).toBe(true);
    }
    for (const left of [
      'node_modules/yaml/package.json',
      'dist/cli.js',
      '.git/HEAD',
      'test/helpers/temp.ts',
      'Dockerfile',
      'k8s/base/kustomization.yaml',
    ]) {
      expect(keep(left), left).toBe(false);
    }
  });
});

function aptPackages(stage: Stage): string[] {
  return only(stage, 'RUN').flatMap(
    (i) => /apt-get install -y --no-install-recommends ([^&]+)/.exec(i.args)?.[1]?.trim().split(' ') ?? [],
  );
}

// Two `npm ci` runs take a minute or more on this project's 2-core machines: CI runs these, a
// developer opts in.
const performSteps = process.env.CI === 'true' || process.env.AGENT_JANITOR_IMAGE_STEPS === '1';

describe.skipIf(!performSteps)('the Dockerfile build steps, performed in a clean clone', () => {
  let work: string;
  let runtimeRoot: string;
  let binDir: string;
  const stageRoots = new Map<string, string>();

  let seededPrebuild: string | null = null;

  beforeAll(() => {
    seededPrebuild = seedPrebuiltAddon();
    work = mkdtempSync(path.join(os.tmpdir(), 'aj-image-'));
    const clone = path.join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', REPO, clone]);
    const committed = parseDockerfile(readFileSync(path.join(clone, 'Dockerfile'), 'utf8'));
    expect(committed, 'commit the Dockerfile: the steps are taken from the committed one').toEqual(dockerfile);
    const context = path.join(work, 'context');
    const keep = dockerignoreFilter(readFileSync(path.join(clone, '.dockerignore'), 'utf8'));
    const tracked = execFileSync('git', ['-C', clone, 'ls-files', '-z'], { encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
    buildContext(clone, tracked, keep, context);
    for (const stage of committed.stages) performStage(stage, context, work, stageRoots);
    runtimeRoot = stageRoots.get(runtime.name) as string;
    binDir = path.join(runtimeRoot, 'usr/local/bin');
  }, 15 * 60_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
    if (seededPrebuild) rmSync(seededPrebuild, { force: true });
  });

  it('leaves a runtime with production dependencies only and an executable entry point', () => {
    const app = path.join(runtimeRoot, 'opt/agent-janitor');
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies))
      expect(existsSync(path.join(app, 'node_modules', dep)), dep).toBe(true);
    for (const dev of Object.keys(pkg.devDependencies))
      expect(existsSync(path.join(app, 'node_modules', dev)), dev).toBe(false);
    expect(existsSync(path.join(app, 'src'))).toBe(false);
    expect(lstatSync(path.join(app, 'dist/cli.js')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(path.join(binDir, 'agent-janitor'))).toBe(
      path.join(runtimeRoot, 'opt/agent-janitor/dist/cli.js'),
    );
  });

  it('runs `agent-janitor --help` and `--version` through the entry point', () => {
    const help = entry(['--help']);
    expect(help.status, help.stderr).toBe(0);
    for (const command of ['run', 'serve', 'report', 'demo', 'config']) expect(help.stdout).toContain(command);
    const version = entry(['--version']);
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it('runs a `demo`: a report-only pass, then a real pass that deletes the proven-dead scratch', () => {
    const sandbox = path.join(tempDir('aj-image-demo-'), 'sandbox');
    const demo = entry(['demo', '--dir', sandbox], 180_000);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('== report-only pass ==');
    expect(demo.stdout).toContain('== real pass ==');
    const report = JSON.parse(readFileSync(path.join(sandbox, 'report', 'report.json'), 'utf8')) as {
      mode: string;
      items: Array<{ verdict: string; path: string | null }>;
      totals: { deleted: number };
    };
    expect(report.mode).toBe('delete');
    expect(report.totals.deleted).toBeGreaterThan(0);
    const after = inventory(sandbox);
    for (const item of report.items) {
      if (item.path === null || item.verdict === 'failed') continue;
      expect(after.has(path.relative(sandbox, item.path)), `${item.path} (${item.verdict})`).toBe(
        item.verdict !== 'deleted',
      );
    }
  }, 240_000);

  it('answers the HEALTHCHECK while `serve` runs, and fails it where nothing listens', async () => {
    const health = execForm(
      only(runtime, 'HEALTHCHECK')
        .at(-1)
        ?.args.replace(/^.*?CMD /, '') ?? '[]',
    );
    const script = path.join(runtimeRoot, health[1] as string);
    const port = await freePort();
    const dir = tempDir('aj-image-serve-');
    const serve = spawn(
      path.join(binDir, 'agent-janitor'),
      [
        'serve',
        '--listen',
        `127.0.0.1:${port}`,
        '--home',
        path.join(dir, 'home'),
        '--report-dir',
        path.join(dir, 'report'),
      ],
      { env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const done = collect(serve, 60_000);
    try {
      const url = `http://127.0.0.1:${port}/healthz`;
      let check = spawnSync('node', [script], {
        env: { ...process.env, AGENT_JANITOR_HEALTHCHECK_URL: url },
        encoding: 'utf8',
      });
      for (let i = 0; i < 50 && check.status !== 0; i += 1) {
        await new Promise((r) => setTimeout(r, 200));
        check = spawnSync('node', [script], {
          env: { ...process.env, AGENT_JANITOR_HEALTHCHECK_URL: url },
          encoding: 'utf8',
        });
      }
      expect(check.status, check.stdout).toBe(0);
      expect(check.stdout).toContain(': 200 ');
    } finally {
      serve.kill('SIGTERM');
    }
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    const closed = spawnSync('node', [script], {
      env: { ...process.env, AGENT_JANITOR_HEALTHCHECK_URL: `http://127.0.0.1:${port}/healthz` },
      encoding: 'utf8',
    });
    expect(closed.status).toBe(1);
    expect(closed.stdout).toMatch(/ECONNREFUSED/);
  }, 90_000);

  function entry(args: string[], timeout = 60_000) {
    const command = execForm(only(runtime, 'ENTRYPOINT').at(-1)?.args ?? '[]');
    // tini is PID 1's helper in the container; here the program it starts is run directly.
    const program = command[command.length - 1] as string;
    return spawnSync(program, args, {
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` },
      encoding: 'utf8',
      timeout,
    });
  }
});

/**
 * One stage: WORKDIR, COPY and RUN performed under the stage's own root folder. `npm` steps run as
 * written; the system steps (apt-get, the user, the link) are only those this test knows, so a new
 * or changed step fails here until the test performs it too.
 */
function performStage(stage: Stage, context: string, work: string, roots: Map<string, string>): void {
  const root = path.join(work, 'stages', stage.name);
  roots.set(stage.name, root);
  mkdirSync(root, { recursive: true });
  let workdir = '/';
  const env: Record<string, string> = {};
  const inRoot = (p: string) => path.join(root, path.posix.resolve(workdir, p));
  for (const instruction of stage.instructions) {
    const { keyword, args } = instruction;
    if (keyword === 'WORKDIR') {
      workdir = path.posix.resolve(workdir, args);
      mkdirSync(inRoot('.'), { recursive: true });
    } else if (keyword === 'ENV') {
      for (const pair of args.split(' ')) {
        const [name, value] = pair.split('=') as [string, string];
        env[name] = value;
      }
    } else if (keyword === 'COPY') {
      const step = parseCopy(args);
      const sourceRoot =
        step.from === null
          ? (p: string) => path.join(context, path.posix.normalize(p))
          : (p: string) => path.join(roots.get(step.from as string) ?? missing(step.from as string), p);
      performCopy(step, sourceRoot, inRoot(step.dest));
    } else if (keyword === 'RUN') {
      performRun(args, inRoot('.'), root, env);
    } else if (!['ARG', 'LABEL', 'USER', 'EXPOSE', 'HEALTHCHECK', 'ENTRYPOINT', 'CMD'].includes(keyword)) {
      throw new Error(`Dockerfile line ${instruction.line}: ${keyword} is not performed by this test`);
    }
  }
}

function performRun(command: string, cwd: string, root: string, env: Record<string, string>): void {
  if (/^npm (ci|run build)\b/.test(command)) {
    const result = spawnSync('bash', ['-c', command], {
      cwd,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    if (result.status !== 0)
      throw new Error(`RUN ${command} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
    return;
  }
  if (
    /^apt-get update && apt-get install -y --no-install-recommends [a-z0-9+.\- ]+ && rm -rf \/var\/lib\/apt\/lists\/\*$/.test(
      command,
    )
  ) {
    // System packages of the base image: what the runtime needs of them (git) is on this machine.
    const git = spawnSync('git', ['--version'], { encoding: 'utf8' });
    if (git.status !== 0) throw new Error('git is needed to stand in for the image packages');
    return;
  }
  const user =
    /^groupadd --system --gid (\d+) \S+ && useradd --system --uid (\d+) --gid \1 .* && install -d -o \2 -g \1 -m 0750 (\S+)$/.exec(
      command,
    );
  if (user) {
    mkdirSync(path.join(root, user[3] as string), { recursive: true });
    return;
  }
  const link = /^ln -s (\S+) (\S+)$/.exec(command);
  if (link) {
    const target = path.join(root, link[2] as string);
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(path.join(root, link[1] as string), target);
    return;
  }
  throw new Error(`RUN ${command}: this step is not one the test knows how to perform`);
}

/**
 * In a real `docker build`, better-sqlite3's install step downloads its prebuilt addon from the
 * package's release page; this machine reaches no such page and would compile it from source for
 * minutes. The addon this checkout's own `npm ci` built for the same Node.js stands in for the
 * download: it is put where prebuild-install looks for one it downloaded before (npm's cache,
 * under the name prebuild-install gives it). Answers the file it added, or null.
 */
function seedPrebuiltAddon(): string | null {
  const require = createRequire(import.meta.url);
  const addon = path.join(REPO, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  if (!existsSync(addon)) return null;
  const util = require(path.join(REPO, 'node_modules/prebuild-install/util.js')) as {
    getDownloadUrl(opts: Record<string, unknown>): string;
    cachedPrebuild(url: string): string;
  };
  const pkg = require(path.join(REPO, 'node_modules/better-sqlite3/package.json')) as Record<string, unknown>;
  const url = util.getDownloadUrl({
    pkg,
    runtime: 'node',
    abi: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
    libc: '',
    'tag-prefix': 'v',
  });
  const cached = util.cachedPrebuild(url);
  if (existsSync(cached)) return null;
  mkdirSync(path.dirname(cached), { recursive: true });
  execFileSync('tar', [
    '-czf',
    cached,
    '-C',
    path.join(REPO, 'node_modules/better-sqlite3'),
    'build/Release/better_sqlite3.node',
  ]);
  return cached;
}

function missing(stage: string): never {
  throw new Error(`COPY --from=${stage}: no such earlier stage`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
