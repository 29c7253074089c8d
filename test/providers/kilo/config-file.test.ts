import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainConfigValues } from '../../../src/git/config-text.js';
import { readRecordedWorktree } from '../../../src/providers/kilo/config-file.js';

/** `core.worktree` as the config's text alone says it: a value, none, or unsure (git is asked). */
function coreWorktreeOf(text: string) {
  const reading = plainConfigValues(text, ['core.worktree']);
  if (reading.kind === 'unsure') return reading;
  const value = reading.values.get('core.worktree');
  return value === undefined ? ({ kind: 'absent' } as const) : ({ kind: 'value', value } as const);
}
import { decodeBytes } from '../../../src/safety/fs/names.js';
import { tempDir } from '../../helpers/temp.js';
import { git } from './fixtures.js';

type GitAnswer =
  | { state: 'recorded'; value: string }
  | { state: 'unrecorded' }
  | { state: 'unreadable'; problem: string };

/**
 * What git itself answers: `git config --file <file> --get core.worktree`, its bytes in the tool's
 * spelling (a byte that is not UTF-8 as its lone surrogate, src/safety/fs/names.ts).
 */
function gitAnswer(file: string): GitAnswer {
  const result = spawnSync('git', ['config', '--file', file, '--get', 'core.worktree'], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' },
  });
  const stdout = decodeBytes(result.stdout);
  const stderr = decodeBytes(result.stderr);
  if (result.status === 1) return { state: 'unrecorded' };
  if (result.status !== 0) return { state: 'unreadable', problem: stderr.trim().split('\n').pop() ?? '' };
  return { state: 'recorded', value: stdout.replace(/\n$/, '') };
}

/** A checkpoint repository made the way Kilo makes one, for a worktree at `worktree`. */
function kiloGitdir(root: string, name: string, worktree: string): string {
  const gitdir = path.join(root, 'snapshot', 'project', name);
  mkdirSync(gitdir, { recursive: true });
  git(['init', '-q'], { env: { GIT_DIR: gitdir, GIT_WORK_TREE: worktree } });
  for (const [key, value] of [
    ['core.autocrlf', 'false'],
    ['core.longpaths', 'true'],
    ['core.symlinks', 'true'],
  ] as const) {
    git(['--git-dir', gitdir, 'config', key, value]);
  }
  return gitdir;
}

function configWith(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe("a checkpoint repository's core.worktree, read from its config file", () => {
  it('agrees with git config on the configs git writes, reading the plain ones itself and asking git for the quoted ones', async () => {
    const root = tempDir('aj-kilo-config-');
    const place = path.join(root, 'repo', '.kilo', 'worktrees');
    mkdirSync(place, { recursive: true });
    // Names git writes as they are, and names it writes quoted or escaped (# ; " \ tab, a trailing space).
    const plain = ['feature-1', 'my work tree', 'тест-数据-é', "a=b[c]d'e$f", ' leading-space', 'x'.repeat(200)];
    const quoted = ['hash#name', 'semi;colon', 'quote"d', 'back\\slash', 'tab\there', 'trailing-space '];
    for (const [index, name] of [...plain, ...quoted].entries()) {
      const worktree = path.join(place, name);
      const config = path.join(kiloGitdir(root, `r${index}`, worktree), 'config');
      const answer = gitAnswer(config);
      expect(answer).toEqual({ state: 'recorded', value: worktree });

      const read = await readRecordedWorktree(config);

      expect({ name, read }).toEqual({ name, read: { ...answer, via: plain.includes(name) ? 'file' : 'git' } });
    }
  });

  it('reads the plain files it fully understands itself, as git does', async () => {
    const dir = tempDir('aj-kilo-config-');
    const cases: Record<string, string> = {
      'comments and blank lines':
        '# made by hand\n\n[core]\n\t; a comment\n\trepositoryformatversion = 0\n\n\tworktree = /srv/a b/w\n',
      'names in capitals': '[CORE]\n\tWorkTree = /srv/caps\n',
      'other sections and subsections':
        '[remote "origin"]\n\turl = https://example.test/r.git\n[core "sub"]\n\tworktree = /not/this\n[core]\n\tworktree=/srv/this\n[branch "main"]\n\tremote = origin\n',
      'no worktree at all': '[core]\n\tbare = false\n\tfilemode\n',
      'an empty file': '',
      'a relative worktree': '[core]\n\tworktree = ../../w\n',
      'a comment after another value': '[core]\n\tbare = false # not bare\n\tworktree = /srv/c\n',
    };
    for (const [name, content] of Object.entries(cases)) {
      const file = configWith(dir, name, content);
      const read = await readRecordedWorktree(file);
      expect({ name, read }).toEqual({ name, read: { ...gitAnswer(file), via: 'file' } });
    }
  });

  it('asks git whenever the file is anything else, and answers what git answers', async () => {
    const dir = tempDir('aj-kilo-config-');
    const other = configWith(dir, 'other', '[core]\n\tworktree = /srv/included\n');
    const cases: Record<string, string | Buffer> = {
      'an include': `[include]\n\tpath = ${other}\n[core]\n\tbare = false\n`,
      'a conditional include': `[includeIf "gitdir:/"]\n\tpath = ${other}\n[core]\n\tworktree = /srv/w\n`,
      'core.worktree set twice': '[core]\n\tworktree = /srv/first\n\tworktree = /srv/second\n',
      'set twice in two core sections': '[core]\n\tworktree = /srv/first\n[Core]\n\tWORKTREE = /srv/second\n',
      'a quoted value': '[core]\n\tworktree = "/srv/quoted path "\n',
      'a quote in another value': '[alias]\n\tst = "status" \n[core]\n\tworktree = /srv/w\n',
      'CRLF line ends': '[core]\r\n\tworktree = /srv/crlf\r\n',
      'a continuation line': '[core]\n\tworktree = /srv/con\\\ntinued\n',
      'a continued other value': '[core]\n\tbare = false \\\n\tworktree = /srv/hidden\n',
      'a byte-order mark': '\ufeff[core]\n\tworktree = /srv/bom\n',
      'an entry on the header line': '[core] worktree = /srv/same-line\n',
      'a comment on the header line': '[core] # core\n\tworktree = /srv/w\n',
      'the old subsection syntax': '[core.sub]\n\tworktree = /srv/old\n',
      'a worktree without a value': '[core]\n\tworktree\n',
      'an empty worktree': '[core]\n\tworktree =\n',
      'a comment after the worktree': '[core]\n\tworktree = /srv/w # the worktree\n',
      'a tab inside the worktree': '[core]\n\tworktree = /srv/a\tb\n',
      'an entry before any section': 'worktree = /srv/w\n[core]\n',
      'a line git cannot parse': '[core\n\tworktree = /srv/w\n',
      'a NUL byte': '[core]\n\tworktree = /srv/w\0x\n',
      'bytes that are not UTF-8': Buffer.concat([
        Buffer.from('[core]\n\tworktree = /srv/'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('\n'),
      ]),
      'a file too large to be one git wrote': `[core]\n\tworktree = /srv/big\n${'# padding\n'.repeat(8000)}`,
    };
    for (const [name, content] of Object.entries(cases)) {
      const file = configWith(dir, name, content);
      const read = await readRecordedWorktree(file);
      const answer = gitAnswer(file);
      if (answer.state === 'unreadable')
        expect({ name, state: read.state, via: read.via }).toEqual({ name, state: 'unreadable', via: 'git' });
      else expect({ name, read }).toEqual({ name, read: { ...answer, via: 'git' } });
    }
  });

  it('asks git about a config that is a link, a folder or missing: this process never opens one through a link', async () => {
    const dir = tempDir('aj-kilo-config-');
    const target = configWith(dir, 'target', '[core]\n\tworktree = /srv/behind-the-link\n');
    const link = path.join(dir, 'linked');
    symlinkSync(target, link);
    const folder = path.join(dir, 'folder');
    mkdirSync(folder);
    for (const file of [link, folder, path.join(dir, 'missing')]) {
      const read = await readRecordedWorktree(file);
      const answer = gitAnswer(file);
      expect(read.via).toBe('git');
      expect(read.state).toBe(answer.state);
      if (answer.state === 'recorded') expect(read).toEqual({ ...answer, via: 'git' });
    }
  });

  it('never answers other than git on configs made of plain and odd lines alike', () => {
    const dir = tempDir('aj-kilo-config-');
    const header = fc.constantFrom('[core]', '[Core]', ' [CORE] ', '[core "x"]', '[remote "o"]', '[user]');
    const worktree = fc.constantFrom(
      '\tworktree = /w/a',
      '\tWorkTree=/w/b',
      'worktree = /w/c d',
      '\tworktree = /w/e ',
      '\tworktree =  /w/f\t',
    );
    const entry = fc.constantFrom('\tbare = false', '\tbare', '\tx-y = 1 ; c', '\tpath = /p # "c"', '\tname = a b');
    const other = fc.constantFrom('', '   ', '# comment', '; c "q" \\', '\t# worktree = /w/no');
    const odd = fc.constantFrom(
      '[core.sub]',
      '[include]',
      '[includeIf "x"]',
      '[core] # c',
      '[core]worktree=/h',
      '[core',
      '\tworktree',
      '\tworktree =',
      '\tworktree = "/w/q"',
      '\tworktree = /w/#g',
      '\tworktree = /w/h\\',
      '\tbare = "x',
      '\tbare = x\\',
      '\t9bad = 1',
      '\r',
      'garbage',
      '\tworktree = /w/i\r',
      '\ufeff[core]',
    );
    const line = fc.oneof(
      { arbitrary: header, weight: 2 },
      { arbitrary: entry, weight: 4 },
      { arbitrary: other, weight: 2 },
      { arbitrary: odd, weight: 1 },
    );
    // A header, lines, and mostly one worktree entry put somewhere among them.
    const config = fc
      .tuple(
        header,
        fc.array(line, { maxLength: 6 }),
        fc.option(fc.tuple(worktree, fc.nat()), { freq: 3 }),
        fc.boolean(),
      )
      .map(([first, lines, inserted, finalNewline]) => {
        const all: string[] = [first, ...lines];
        if (inserted) all.splice(1 + (inserted[1] % all.length), 0, inserted[0]);
        return all.join('\n') + (finalNewline ? '\n' : '');
      });
    const seen = { value: 0, absent: 0, unsure: 0 };
    let index = 0;
    fc.assert(
      fc.property(config, (text) => {
        const reading = coreWorktreeOf(text);
        seen[reading.kind] += 1;
        if (reading.kind === 'unsure') return;
        index += 1;
        const answer = gitAnswer(configWith(dir, `case-${index}`, text));
        expect(
          reading.kind === 'value' ? { state: 'recorded', value: reading.value } : { state: 'unrecorded' },
        ).toEqual(answer);
      }),
      { seed: 20261130, numRuns: 400 },
    );
    // Every kind of answer was put to the test, not only the refusals to guess.
    expect(Math.min(seen.value, seen.absent, seen.unsure)).toBeGreaterThan(40);
  });
});
