import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');
const packageJson = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockedPackage> };
/** The oldest Node.js the project says it runs on. */
const oldest = semver.minVersion(packageJson.engines.node);

describe('the Node.js the README promises', () => {
  it('the README and package.json both say Node.js 20', () => {
    expect(read('README.md')).toContain('Node.js 20 or newer');
    expect(oldest?.major).toBe(20);
  });

  it('every package of package-lock.json runs on it: a fresh `npm ci` prints no EBADENGINE', () => {
    const excluding: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      // Old packages may give engines as a list of words, which npm does not check.
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range !== undefined && !semver.satisfies(oldest as semver.SemVer, range))
        excluding.push(`${location || 'the project'}@${entry.version}: node ${range}`);
    }
    expect(excluding, `not for Node.js ${oldest}`).toEqual([]);
  });
});
