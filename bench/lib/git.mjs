import { execFileSync } from 'node:child_process';

// Fleet repositories commit as a made-up person and ignore the machine's git config.
const BUILD_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench Person',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Bench Person',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
};

/** Runs git for the fleet builder and answers stdout; throws with git's message on failure. */
export function git(args, options = {}) {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], {
    cwd: options.cwd,
    env: { ...BUILD_ENV, ...options.env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}
