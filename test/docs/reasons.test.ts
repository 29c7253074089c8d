import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROVIDERS, REASONS } from '../../src/providers/registry.js';

const page = readFileSync(new URL('../../docs/reasons.md', import.meta.url), 'utf8');

/** The rows of the reason table in docs/reasons.md: code and the verdicts its second column names. */
function documentedReasons(): Map<string, string[]> {
  const start = page.indexOf('\n| code | verdict | meaning |\n');
  const end = page.indexOf('\n\n', start + 1);
  expect(start).toBeGreaterThan(0);
  const rows = new Map<string, string[]>();
  for (const line of page.slice(start, end === -1 ? undefined : end).split('\n')) {
    const match = /^\| `([a-z-]+)` \| ([^|]+) \|/.exec(line);
    if (!match) continue;
    expect(rows.has(match[1] as string), `${match[1]} is in the table twice`).toBe(false);
    rows.set(
      match[1] as string,
      (match[2] as string).split('/').map((verdict) => verdict.trim()),
    );
  }
  return rows;
}

describe('the reason table of docs/reasons.md', () => {
  it('lists exactly the reason codes the code can give', () => {
    expect([...documentedReasons().keys()].sort()).toEqual(Object.keys(REASONS).sort());
  });

  it('gives each code the verdicts it comes with', () => {
    for (const [code, verdicts] of documentedReasons()) {
      const allowed: readonly string[] = REASONS[code] ?? [];
      // A code proven dead is documented as `deleted`; report-only passes give it as `would-delete`.
      const expected = allowed.filter((verdict) => verdict !== 'would-delete');
      expect(verdicts.sort(), code).toEqual([...expected].sort());
    }
  });

  it('the git garbage heading names every provider whose reasons include git-temporary', () => {
    const heading = /^\| \*\*git garbage\*\* \(kind `git-garbage`, one item per file; ([a-z, -]+)\)/m.exec(page);
    if (!heading) throw new Error('the table has no git garbage heading');
    const named = (heading[1] as string).split(',').map((name) => name.trim());
    const giving = PROVIDERS.filter((provider) => 'git-temporary' in provider.reasons).map((provider) => provider.name);
    expect(giving.length).toBeGreaterThan(0);
    expect([...named].sort()).toEqual([...giving].sort());
  });
});
