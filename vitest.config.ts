import { defineConfig } from 'vitest/config';

/**
 * Pure modules only (judges, parsers, config, report rendering, docs): no child process, no git,
 * no real tool. `npm run test:fast` runs these in seconds; keep them that way. A test is chosen by
 * its folder or its name, never by a list kept by hand: name a pure test `*.unit.test.ts`.
 */
const FAST = [
  'test/docs/**/*.test.ts',
  'test/architecture/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/**/*.unit.test.ts',
];

/** Real tools, image build steps, crash tests under strace, walks of huge trees: minutes, not seconds. Name them `*.slow.test.ts`. */
const SLOW = ['test/deploy/**/*.test.ts', 'test/**/*.slow.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Tests make commits of their own; they must not depend on the machine's git identity.
    env: {
      GIT_AUTHOR_NAME: 'agent-janitor tests',
      GIT_AUTHOR_EMAIL: 'tests@agent-janitor.invalid',
      GIT_COMMITTER_NAME: 'agent-janitor tests',
      GIT_COMMITTER_EMAIL: 'tests@agent-janitor.invalid',
    },
    projects: [
      // One module graph per worker for the whole fast project: its tests are pure, and importing src once
      // instead of once per file is most of its time.
      { extends: true, test: { name: 'fast', include: FAST, isolate: false } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...FAST, ...SLOW] } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
