/**
 * The Dockerfile as text: what the contract asks of the image (one pinned Node.js LTS slim Debian
 * base, production dependencies only, git, a user of its own, tini, a HEALTHCHECK without curl)
 * and the build context's allow-list. scripts/image-test.sh builds it with podman and runs the
 * image; these are the properties a build that works could still lose.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dockerignoreFilter, execForm, parseCopy, parseDockerfile, type Stage } from './dockerfile.js';

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
      expect.arrayContaining([expect.stringMatching(/(^|&& )npm ci\b(?!.*--omit)/), 'npm run build']),
    );
    expect(runs(byName('prod-deps'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/(^|&& )npm ci --omit=dev\b/)]),
    );
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
