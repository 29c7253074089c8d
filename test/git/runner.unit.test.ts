import { describe, expect, it } from 'vitest';
import { INHERITED_GIT_VARIABLES, scrubGitEnvironment } from '../../src/git/environment.js';
import { gitEnvironment, lastLine } from '../../src/git/git.js';
import { SAFE_CONFIG } from '../../src/git/settings.js';
import { parseStatus } from '../../src/engines/git-worktree/status.js';
import { withProcessEnv } from '../helpers/process-env.js';

const OID = '0123456789abcdef0123456789abcdef01234567';

describe('the environment git runs with', () => {
  it('drops every GIT_ variable but the ones known to be harmless, whatever their case', () => {
    const scrubbed = scrubGitEnvironment({
      PATH: '/usr/bin',
      HOME: '/root',
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_INDEX_FILE: '/tmp/index',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'status.showUntrackedFiles',
      GIT_CONFIG_VALUE_0: 'no',
      GIT_CONFIG_PARAMETERS: "'core.excludesfile'='/x'",
      GIT_NAMESPACE: 'hidden',
      GIT_SOME_FUTURE_KNOB: '1',
      git_dir: '/lowercase',
      GIT_EXEC_PATH: '/usr/lib/git-core',
      MYGIT_DIR: 'not git’s',
      UNSET: undefined,
    });
    expect(scrubbed).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      GIT_EXEC_PATH: '/usr/lib/git-core',
      MYGIT_DIR: 'not git’s',
    });
    expect([...INHERITED_GIT_VARIABLES]).toEqual(['GIT_EXEC_PATH']);
  });

  it('sets no global or system config, no optional locks, the C locale, no pager and no prompt over anything inherited or passed', async () => {
    const env = await withProcessEnv(
      { GIT_DIR: '/elsewhere/.git', LC_ALL: 'de_DE.UTF-8', GIT_OPTIONAL_LOCKS: '1', XDG_CONFIG_HOME: '/root/.config' },
      () => gitEnvironment({ LC_ALL: 'fr_FR.UTF-8', GIT_TERMINAL_PROMPT: '1', HOME: '/home/ana' }),
    );
    expect(env.GIT_DIR).toBeUndefined();
    expect(env).toMatchObject({
      HOME: '/dev/null',
      XDG_CONFIG_HOME: '/dev/null',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_OPTIONAL_LOCKS: '0',
      LC_ALL: 'C',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    });
  });

  it('drops every GIT_* variable the pass inherits but GIT_EXEC_PATH, and keeps the caller’s own', async () => {
    const env = await withProcessEnv(
      {
        GIT_DIR: '/elsewhere/.git',
        GIT_CONFIG_PARAMETERS: "'status.showUntrackedFiles'='no'",
        git_work_tree: '/elsewhere',
        GIT_EXEC_PATH: '/usr/lib/git-core',
        LC_ALL: 'fr_FR.UTF-8',
      },
      () => gitEnvironment({ GIT_AUTHOR_NAME: 'demo' }),
    );
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(env.git_work_tree).toBeUndefined();
    expect(env.GIT_EXEC_PATH).toBe('/usr/lib/git-core');
    expect(env.GIT_AUTHOR_NAME).toBe('demo');
    expect(env).toMatchObject({ GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' });
  });

  it('switches off hooks and fsmonitor and trusts the repository only to be read', () => {
    expect(SAFE_CONFIG).toEqual(['core.fsmonitor=false', 'safe.directory=*', 'core.hooksPath=/dev/null']);
  });
});

describe('reading git’s output', () => {
  it('takes git’s last line on stderr as its message', () => {
    expect(lastLine('hint: a\nhint: b\nfatal: not a git repository\n')).toBe('fatal: not a git repository');
    expect(lastLine('')).toBe('');
  });

  it('parses a porcelain v2 status: HEAD, branch, changes, untracked files, a rename counted once', () => {
    const out = [
      `# branch.oid ${OID}`,
      '# branch.head task-7',
      '# branch.upstream origin/task-7',
      `1 .M N... 100644 100644 100644 ${OID} ${OID} src/has space.ts`,
      `2 R. N... 100644 100644 100644 ${OID} ${OID} R100 new name.ts`,
      'old name.ts',
      `u UU N... 100644 100644 100644 100644 ${OID} ${OID} ${OID} conflict.ts`,
      '? notes.txt',
      '',
    ].join('\0');
    expect(parseStatus(out, '/w')).toEqual({
      head: { commit: OID, branch: 'refs/heads/task-7' },
      changes: { changed: 3, untracked: 1, flagged: 0, sample: ['src/has space.ts', 'new name.ts', 'conflict.ts'] },
    });
  });

  it('reads an unborn branch and a detached HEAD', () => {
    expect(parseStatus('# branch.oid (initial)\0# branch.head main\0', '/w').head).toEqual({
      commit: null,
      branch: 'refs/heads/main',
    });
    expect(parseStatus(`# branch.oid ${OID}\0# branch.head (detached)\0`, '/w').head).toEqual({
      commit: OID,
      branch: null,
    });
  });

  it('refuses output it does not understand rather than call a worktree clean', () => {
    expect(() => parseStatus('', '/w')).toThrow('git status in /w did not say where HEAD is');
    expect(() => parseStatus(`# branch.oid ${OID}\0# branch.head main\0! ignored.txt\0`, '/w')).toThrow(
      'printed a record this version does not know',
    );
    expect(() => parseStatus('# branch.oid HEAD\0# branch.head main\0', '/w')).toThrow('which is no object id');
  });
});
