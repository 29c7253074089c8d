import { describe, expect, it } from 'vitest';
import { HandoverRefused, NeedsDescriptors, planHandover } from '../../src/git/handover.js';
import { decodeBytes } from '../../src/safety/fs/names.js';

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
