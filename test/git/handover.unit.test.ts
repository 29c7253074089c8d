import { describe, expect, it } from 'vitest';
import { HandoverRefused, NeedsDescriptors, planHandover } from '../../src/git/handover.js';
import { gitEnvironment, SAFE_CONFIG } from '../../src/git/runner.js';
import { decodeBytes } from '../../src/safety/names.js';

/** A path in the tool's spelling whose bytes are not UTF-8 (each such byte a lone surrogate). */
const notUtf8 = (text: string): string => decodeBytes(Buffer.from(text, 'latin1'));

describe('planHandover: what git is given for paths that are not UTF-8', () => {
  it('leaves UTF-8 arguments and working directories as they are', () => {
    expect(planHandover(['status', '--porcelain=v2', '/srv/wt'], '/srv/wt')).toEqual({
      args: ['status', '--porcelain=v2', '/srv/wt'],
      cwd: '/srv/wt',
      handOver: false,
    });
    expect(planHandover(['rev-parse', 'HEAD'], undefined)).toEqual({
      args: ['rev-parse', 'HEAD'],
      cwd: undefined,
      handOver: false,
    });
  });

  it('hands over a working directory that is not UTF-8', () => {
    const cwd = notUtf8('/srv/caf\xe9');
    expect(planHandover(['status'], cwd)).toEqual({ args: ['status'], cwd, handOver: true });
  });

  it('turns `-C <path>` that is not UTF-8 into the working directory, resolved against the one given', () => {
    const repo = notUtf8('/srv/d\xe9j\xe0');
    expect(planHandover(['-C', repo, 'rev-parse', '--show-toplevel'], undefined)).toEqual({
      args: ['rev-parse', '--show-toplevel'],
      cwd: repo,
      handOver: true,
    });
    expect(planHandover(['-C', notUtf8('sub\xff'), 'status'], '/srv').cwd).toBe(notUtf8('/srv/sub\xff'));
  });

  it('leaves a UTF-8 -C to git, and a -C after the command alone', () => {
    expect(planHandover(['-C', '/srv/repo', '-c', 'a.b=1', 'rev-parse', 'HEAD'], undefined)).toEqual({
      args: ['-C', '/srv/repo', '-c', 'a.b=1', 'rev-parse', 'HEAD'],
      cwd: undefined,
      handOver: false,
    });
    // After the command `-C` is that command's option, not a folder: a relative name there that is
    // not UTF-8 has no form git could be given.
    expect(() => planHandover(['commit', '-C', notUtf8('caf\xe9')], '/srv/wt')).toThrow(HandoverRefused);
  });

  it('makes a lone absolute path that is not UTF-8 relative to its own folder', () => {
    const file = notUtf8('/srv/caf\xe9/.git/config');
    expect(planHandover(['config', '--file', file, '--list'], undefined)).toEqual({
      args: ['config', '--file', './config', '--list'],
      cwd: notUtf8('/srv/caf\xe9/.git'),
      handOver: true,
    });
    // Its folder may be UTF-8 when only the last name is not: then that name itself cannot be passed.
    expect(() => planHandover(['config', '--file', notUtf8('/srv/caf\xe9')], undefined)).toThrow(NeedsDescriptors);
  });

  it('leaves absolute paths no working directory can stand for to descriptors, and refuses relative ones', () => {
    expect(() => planHandover(['hash-object', notUtf8('caf\xe9')], '/srv/wt')).toThrow(HandoverRefused);
    expect(() => planHandover(['hash-object', notUtf8('caf\xe9')], '/srv/wt')).toThrow(/\\xe9/);
    expect(() => planHandover(['diff', notUtf8('/a\xe9/x'), notUtf8('/b\xe9/y')], undefined)).toThrow(NeedsDescriptors);
    expect(() => planHandover(['worktree', 'remove', notUtf8('/w/caf\xe9')], '/srv/repo')).toThrow(NeedsDescriptors);
    expect(() => planHandover(['-C', '/srv', 'config', '--file', notUtf8('/a\xe9/config')], undefined)).toThrow(
      NeedsDescriptors,
    );
  });
});

describe('gitEnvironment: what every git run inherits', () => {
  it('drops every GIT_* variable but GIT_EXEC_PATH and sets the ones every run needs', () => {
    const saved = { ...process.env };
    try {
      process.env.GIT_DIR = '/elsewhere/.git';
      process.env.GIT_CONFIG_PARAMETERS = "'status.showUntrackedFiles'='no'";
      process.env.git_work_tree = '/elsewhere';
      process.env.GIT_EXEC_PATH = '/usr/lib/git-core';
      process.env.LC_ALL = 'fr_FR.UTF-8';
      const env = gitEnvironment({ GIT_AUTHOR_NAME: 'demo' });
      expect(env.GIT_DIR).toBeUndefined();
      expect(env.GIT_CONFIG_PARAMETERS).toBeUndefined();
      expect(env.git_work_tree).toBeUndefined();
      expect(env.GIT_EXEC_PATH).toBe('/usr/lib/git-core');
      expect(env.GIT_AUTHOR_NAME).toBe('demo');
      expect(env).toMatchObject({ GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' });
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it('switches off hooks and fsmonitor and trusts the repository only to be read', () => {
    expect(SAFE_CONFIG).toEqual(['core.fsmonitor=false', 'safe.directory=*', 'core.hooksPath=/dev/null']);
  });
});
