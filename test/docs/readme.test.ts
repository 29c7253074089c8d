import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url));

describe('the README', () => {
  it('stays a page for users: at most 30 kB, the reference lives in docs/', () => {
    expect(readme.byteLength).toBeLessThanOrEqual(30_000);
  });

  it('gives the commands new users and CI run, as .ci/run runs them', () => {
    const text = readme.toString('utf8');
    const ci = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');
    for (const command of ['bash scripts/setup.sh', 'npm test']) {
      expect(ci).toContain(command);
      expect(text).toMatch(new RegExp(`^${command.replace(/\./g, '\\.')}\\s`, 'm'));
    }
    expect(text).toContain('node dist/cli.js run --report-only');
  });
});
