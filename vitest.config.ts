import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
