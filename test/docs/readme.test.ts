import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url));
const text = readme.toString('utf8');
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

/** The text of one `## ` section of the README, up to the next. */
function section(heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `the README has a section ${heading}`).toBeGreaterThan(0);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The lines of the first fenced code block of a piece of Markdown, comments cut off. */
function firstCodeBlock(markdown: string): string[] {
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(markdown);
  if (!match) throw new Error('no code block');
  return (match[1] as string)
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
}

describe('the README', () => {
  it('stays a page for users: at most 30 kB, the reference lives in docs/', () => {
    expect(readme.byteLength).toBeLessThanOrEqual(30_000);
  });

  it('installs the light way first: build, link, one report-only pass', () => {
    const install = section('Install');
    expect(install).toMatch(/Node\.js 20 or newer and git/);
    expect(firstCodeBlock(install)).toEqual(['npm ci && npm run build', 'npm link', 'agent-janitor run --report-only']);
    // The commands are this package's own: the build script, and the command npm link puts on PATH.
    expect(packageJson.scripts.build).toBeDefined();
    expect(Object.keys(packageJson.bin)).toEqual(['agent-janitor']);
    expect(install.indexOf('npm ci')).toBeLessThan(install.indexOf('scripts/setup.sh'));
  });

  it('gives the test set-up as a "Develop and test" line, as .ci/run runs it and docs/development.md starts', () => {
    const install = section('Install');
    const start = install.indexOf('\n**Develop and test:**');
    expect(start).toBeGreaterThan(0);
    const line = install.slice(start + 1).split('\n\n')[0] as string;
    const ci = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');
    const development = readFileSync(new URL('../../docs/development.md', import.meta.url), 'utf8');
    for (const command of ['bash scripts/setup.sh', 'npm test']) {
      expect(line).toContain(`\`${command}\``);
      expect(ci).toMatch(new RegExp(`^${command.replace(/\./g, '\\.')}$`, 'm'));
      expect(firstCodeBlock(development)).toContain(command);
    }
    expect(line).toContain('(docs/development.md)');
  });
});
