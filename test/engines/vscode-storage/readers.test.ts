import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hashWorkingDir } from '../../../src/providers/cline/layout.js';
import { editorDirs, extensionStorages, stateDatabases } from '../../../src/engines/vscode-storage/editors.js';
import { allAtLeast, installedVersions } from '../../../src/engines/vscode-storage/extensions.js';
import { readShadowConfig } from '../../../src/engines/vscode-storage/git-config.js';
import { plainConfigValues as plainText } from '../../../src/git/config-text.js';

const SHADOW_KEYS = ['core.worktree', 'user.name', 'user.email'];

/** The three keys of a shadow repository's config, as its text alone says them; null where git is asked. */
function plainConfigValues(text: string) {
  const reading = plainText(text, SHADOW_KEYS);
  if (reading.kind === 'unsure') return null;
  const get = (key: string) => reading.values.get(key) ?? null;
  return { worktree: get('core.worktree'), userName: get('user.name'), userEmail: get('user.email') };
}
import { parseJsonc } from '../../../src/engines/vscode-storage/jsonc.js';
import { HISTORY_SETTLE_MS, settleHistory, type HistoryRead } from '../../../src/engines/vscode-storage/settle.js';
import { readCommits, readShadowRepos } from '../../../src/engines/vscode-storage/shadow-repo.js';
import { readExtensionState } from '../../../src/engines/vscode-storage/state-db.js';
import { put } from '../../helpers/fs-fixtures.js';
import { gitWrapper } from '../../helpers/git-wrapper.js';
import { withProcessEnv } from '../../helpers/process-env.js';
import { tempDir } from '../../helpers/temp.js';
import { git, makeShadowRepo, writeInstalledExtensions, writeStateDb } from './fixtures.js';

describe("Cline's hashWorkingDir", () => {
  it('gives the folder names the real Cline CLI gave its workspaces', () => {
    // Read off checkpoints/<hash> made by npm cline 1.0.10 (core 3.52.0) for these workspaces.
    expect(hashWorkingDir('/tmp/aj-cline-home/work/app')).toBe('1219383456');
    expect(hashWorkingDir('/tmp/aj-cline-home/work/a')).toBe('1990093472');
    expect(hashWorkingDir('/tmp/aj-cline-home/work/b')).toBe('1990093473');
  });

  it('hashes UTF-16 code units into 32 bits, in decimal', () => {
    expect(hashWorkingDir('')).toBe('0');
    expect(hashWorkingDir('a')).toBe('97');
    // One astral character is two code units, as in JavaScript's charCodeAt.
    expect(hashWorkingDir('😀')).toBe(String(((0xd83d * 31) >>> 0) + 0xde00));
    expect(Number(hashWorkingDir('/home/ana/projects/a-rather-long-workspace-name/with/many/parts'))).toBeLessThan(
      2 ** 32,
    );
  });
});

describe('settings with comments', () => {
  it('reads what VS Code reads: comments, trailing commas, and strings that hold // or commas untouched', () => {
    expect(
      parseJsonc(`{
        // a comment
        "roo-cline.customStoragePath": "/mnt/big//roo, really", /* inline */
        "list": [1, 2, ],
        "url": "http://example.test/*not a comment*/",
        "quote": "a \\" b // c",
      }`),
    ).toEqual({
      'roo-cline.customStoragePath': '/mnt/big//roo, really',
      list: [1, 2],
      url: 'http://example.test/*not a comment*/',
      quote: 'a " b // c',
    });
  });

  it('fails on what is not settings JSON', () => {
    expect(() => parseJsonc('{ "a": ')).toThrow();
    expect(() => parseJsonc('{ "a": 1 /* open')).toThrow();
    expect(() => parseJsonc('{ "a": "unterminated }')).toThrow();
  });
});

describe("a shadow repository's config", () => {
  it('reads the plain file git writes in process, and leaves anything unusual to git', async () => {
    expect(
      plainConfigValues(
        '[core]\n\trepositoryformatversion = 0\n\tworktree = /home/ana/shop\n[commit]\n\tgpgSign = false\n[user]\n\tname = Cline Checkpoint\n\temail = checkpoint@cline.bot\n',
      ),
    ).toEqual({ worktree: '/home/ana/shop', userName: 'Cline Checkpoint', userEmail: 'checkpoint@cline.bot' });
    expect(plainConfigValues('[core]\n\tworktree = "/home/ana/with space"\n')).toBeNull();
    expect(plainConfigValues('[include]\n\tpath = other\n')).toBeNull();
    expect(plainConfigValues('[user]\n\tname = a\n\tname = b\n')).toBeNull();
    expect(plainConfigValues('[core]\r\n\tworktree = /x\r\n')).toBeNull();
    expect(plainConfigValues('[core "sub"]\n\tworktree = /not/core\n')).toEqual({
      worktree: null,
      userName: null,
      userEmail: null,
    });

    const dir = tempDir('aj-vscode-config-');
    const repo = makeShadowRepo(path.join(dir, 'r'), {
      worktree: path.join(dir, 'ws with "quotes"'),
      userName: 'Roo Code',
      userEmail: 'noreply@example.com',
      emptyTemplate: true,
      checkpoints: [],
      initialSubject: null,
    });
    // git quotes this value: the in-process reader declines, git answers.
    expect(await readShadowConfig(path.join(repo, '.git', 'config'))).toEqual({
      worktree: path.join(dir, 'ws with "quotes"'),
      userName: 'Roo Code',
      userEmail: 'noreply@example.com',
    });
  });

  it('lists the subjects and branches of every ref, and answers an empty list for a repository without commits', async () => {
    const dir = tempDir('aj-vscode-commits-');
    const ws = path.join(dir, 'ws');
    const repo = makeShadowRepo(path.join(dir, 'r'), {
      worktree: ws,
      userName: 'Cline Checkpoint',
      userEmail: 'checkpoint@cline.bot',
      emptyTemplate: false,
      checkpoints: ['checkpoint', 'checkpoint-1-2'],
      branches: ['task-1790000000001', 'task-1790000000002'],
    });
    const commits = await readCommits(path.join(repo, '.git'));
    expect(commits.subjects).toEqual(['checkpoint', 'checkpoint-1-2', 'initial commit']);
    expect(commits.branches).toEqual(['master', 'task-1790000000001', 'task-1790000000002']);
    expect(commits.count).toBe(3);
    expect(commits.newestMs).toBeGreaterThan(Date.now() - 600_000);

    const empty = makeShadowRepo(path.join(dir, 'e'), {
      worktree: ws,
      userName: 'x',
      userEmail: 'y',
      emptyTemplate: true,
      checkpoints: [],
      initialSubject: null,
    });
    expect(await readCommits(path.join(empty, '.git'))).toEqual({
      subjects: [],
      branches: [],
      count: 0,
      newestMs: null,
    });
    git(['config', 'core.worktree', path.join(dir, 'missing')], { cwd: repo });
    expect((await readCommits(path.join(repo, '.git'))).count).toBe(3);
  });
});

describe('shadow repositories read many at once', () => {
  it('answers each repository as its own log would, whatever its folder is called, and asks a failed log again alone', async () => {
    const dir = tempDir('aj-vscode-many-');
    const ws = path.join(dir, 'ws');
    const spec = { worktree: ws, userName: 'Cline Checkpoint', userEmail: 'checkpoint@cline.bot', emptyTemplate: true };
    const folders = [
      makeShadowRepo(path.join(dir, 'one'), { ...spec, checkpoints: ['checkpoint-1-a'], branches: ['task-a'] }),
      makeShadowRepo(path.join(dir, 'empty'), { ...spec, checkpoints: [], initialSubject: null }),
      // A name the shell must take as it is, never as code.
      makeShadowRepo(path.join(dir, `it's $(touch ${path.join(dir, 'pwned')}) "two"\n\tthree`), {
        ...spec,
        checkpoints: ['checkpoint-2-b', 'checkpoint-2-c'],
      }),
      makeShadowRepo(path.join(dir, 'three'), { ...spec, checkpoints: [] }),
    ];
    put(path.join(dir, 'not-a-repo', 'file'), 'x');
    folders.push(path.join(dir, 'not-a-repo'));
    // A branch naming a commit that is not there: git log fails in the batch, and is asked again alone.
    const broken = makeShadowRepo(path.join(dir, 'broken'), { ...spec, checkpoints: [] });
    put(path.join(broken, '.git', 'refs', 'heads', 'ghost'), `${'1'.repeat(40)}\n`);
    folders.push(broken);

    // A git that notes which program started it: the shell, or this process.
    const log = path.join(dir, 'parents.log');
    const bin = gitWrapper(dir, `printf '%s %s\\0' "$(cat /proc/$PPID/comm)" "$*" >> '${log}'`);
    const many = await withProcessEnv({ PATH: `${bin}:${process.env.PATH}` }, () => readShadowRepos(folders));

    expect(many.map((facts) => facts.folder)).toEqual(folders);
    for (const facts of many.slice(0, 4)) {
      expect(facts.gitProblem).toBeUndefined();
      expect(facts.commits).toEqual(await readCommits(facts.gitdir));
    }
    expect(many.map((facts) => facts.commits?.count)).toEqual([2, 0, 3, 1, undefined, undefined]);
    expect(many[5]?.gitProblem).toMatch(/git log in .*broken.* failed \(128\): fatal: bad object refs\/heads\/ghost/);
    expect(many[2]?.commits?.subjects).toEqual(['checkpoint-2-b', 'checkpoint-2-c', 'initial commit']);
    expect(many[4]).toMatchObject({ gitdirIsFolder: false, commits: null, strayEntries: ['file'] });
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
    // One shell ran the five logs; only the failed one was started again, from this process.
    const starts = readFileSync(log, 'utf8').split('\0').slice(0, -1);
    expect(starts.filter((line) => line.startsWith('sh '))).toHaveLength(5);
    expect(starts.filter((line) => !line.startsWith('sh '))).toEqual([
      expect.stringMatching(new RegExp(`^node .*--git-dir ${broken}/\\.git `)),
    ]);
  });
});

describe("VS Code's state database", () => {
  it('reads the extension’s row in any case, read-only, and fails on a database that is not VS Code’s', () => {
    const dir = tempDir('aj-vscode-state-');
    const file = writeStateDb(path.join(dir, 'state.vscdb'), {
      'RooVeterinaryInc.roo-cline': { taskHistory: [{ id: 'a' }] },
    });
    expect(readExtensionState(file, 'rooveterinaryinc.roo-cline')).toEqual({
      file,
      states: [{ taskHistory: [{ id: 'a' }] }],
    });
    expect(readExtensionState(file, 'kilocode.kilo-code')).toEqual({ file, states: [] });

    const other = path.join(dir, 'other.vscdb');
    const db = new Database(other);
    db.exec(
      "CREATE TABLE ItemTable (key TEXT, value BLOB); INSERT INTO ItemTable VALUES ('kilocode.kilo-code', '[1, 2]')",
    );
    db.close();
    expect(() => readExtensionState(other, 'kilocode.kilo-code')).toThrow(/not a JSON object/);
    writeFileSync(path.join(dir, 'junk.vscdb'), 'not a database at all, not at all');
    expect(() => readExtensionState(path.join(dir, 'junk.vscdb'), 'x.y')).toThrow(/junk\.vscdb/);
    expect(() => readExtensionState(path.join(dir, 'absent.vscdb'), 'x.y')).toThrow(/absent\.vscdb/);
  });

  it('waits out a writer that holds the database, and fails closed when it holds it too long', () => {
    const dir = tempDir('aj-vscode-busy-');
    const file = writeStateDb(path.join(dir, 'state.vscdb'), { 'a.b': { taskHistory: [] } });
    const writer = new Database(file);
    writer.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      expect(() => readExtensionState(file, 'a.b')).toThrow(/locked|busy/i);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    expect(readExtensionState(file, 'a.b').states).toHaveLength(1);
  });
});

describe('where VS Code keeps its products', () => {
  it('finds every product folder with a User folder, the servers of remote hosts, and an extension’s storage in each profile', async () => {
    const home = tempDir('aj-vscode-home-');
    mkdirSync(path.join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev'), {
      recursive: true,
    });
    mkdirSync(
      path.join(home, '.config', 'Cursor', 'User', 'profiles', 'p1', 'globalStorage', 'saoudrizwan.claude-dev'),
      { recursive: true },
    );
    mkdirSync(path.join(home, '.config', 'not-an-editor', 'cache'), { recursive: true });
    mkdirSync(path.join(home, '.vscode-server', 'data', 'User', 'globalStorage'), { recursive: true });
    mkdirSync(path.join(home, '.vscode-server-insiders', 'data', 'User'), { recursive: true });
    mkdirSync(path.join(home, '.cache', 'data', 'User'), { recursive: true });
    const elsewhere = tempDir('aj-vscode-moved-');
    mkdirSync(path.join(home, '.config', 'VSCodium', 'User', 'globalStorage'), { recursive: true });
    symlinkSync(
      elsewhere,
      path.join(home, '.config', 'VSCodium', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline'),
    );
    put(path.join(home, '.config', 'Code', 'User', 'globalStorage', 'state.vscdb'), '');

    const editors = await editorDirs(home, { HOME: '/somebody-else' });
    expect(editors.map((editor) => [editor.product, editor.remote]).sort()).toEqual([
      ['.vscode-server', true],
      ['.vscode-server-insiders', true],
      ['Code', false],
      ['Cursor', false],
      ['VSCodium', false],
    ]);
    const byName = new Map(editors.map((editor) => [editor.product, editor]));
    expect(byName.get('Code')?.extensionsDir).toBe(path.join(home, '.vscode', 'extensions'));
    expect(byName.get('.vscode-server')?.extensionsDir).toBe(path.join(home, '.vscode-server', 'extensions'));
    expect((await extensionStorages(byName.get('Cursor') as never, 'saoudrizwan.claude-dev'))?.storages).toEqual([
      path.join(home, '.config', 'Cursor', 'User', 'profiles', 'p1', 'globalStorage', 'saoudrizwan.claude-dev'),
    ]);
    // A storage folder moved to another disk and linked back is still the extension's.
    expect(
      (await extensionStorages(byName.get('VSCodium') as never, 'RooVeterinaryInc.roo-cline'))?.storages,
    ).toHaveLength(1);
    expect((await stateDatabases(byName.get('Code') as never)).files).toEqual([
      path.join(home, '.config', 'Code', 'User', 'globalStorage', 'state.vscdb'),
    ]);

    // The current user's own home honours XDG_CONFIG_HOME.
    const xdg = tempDir('aj-vscode-xdg-');
    mkdirSync(path.join(xdg, 'Code - Insiders', 'User'), { recursive: true });
    const own = await editorDirs(home, { HOME: home, XDG_CONFIG_HOME: xdg });
    expect(own.map((editor) => editor.product).sort()).toEqual([
      '.vscode-server',
      '.vscode-server-insiders',
      'Code - Insiders',
    ]);
  });

  it('knows an installed version only from extensions.json, and claims a format only when every version is known', async () => {
    const home = tempDir('aj-vscode-ext-');
    const [editor] = await (async () => {
      mkdirSync(path.join(home, '.config', 'Code', 'User', 'profiles', 'work'), { recursive: true });
      return editorDirs(home, {});
    })();
    expect(await installedVersions(editor as never, 'saoudrizwan.claude-dev')).toBeNull();
    writeInstalledExtensions(path.join(home, '.vscode', 'extensions'), { 'saoudrizwan.claude-dev': '4.1.13' });
    put(
      path.join(home, '.config', 'Code', 'User', 'profiles', 'work', 'extensions.json'),
      JSON.stringify([{ identifier: { id: 'SaoudRizwan.claude-dev' }, version: '3.89.2' }]),
    );
    const versions = await installedVersions(editor as never, 'saoudrizwan.claude-dev');
    expect(versions?.sort()).toEqual(['3.89.2', '4.1.13']);
    expect(allAtLeast(versions, 4)).toBe(false);
    expect(allAtLeast(['4.1.13', '4.0.0'], 4)).toBe(true);
    expect(allAtLeast(['4.1.13', 'nightly'], 4)).toBe(false);
    expect(allAtLeast(null, 4)).toBe(false);
  });
});

describe('a history read twice', () => {
  const read = (digest: string, mtimeMs: number | null): HistoryRead => ({
    digest,
    newest: mtimeMs === null ? null : { mtimeMs, path: '/h/taskHistory.json' },
  });

  it('reads once when the newest source is old enough, twice otherwise, and compares', async () => {
    const now = 1_000_000;
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
    };
    expect(
      (await settleHistory(async () => read('a', now - HISTORY_SETTLE_MS), { now: () => now, sleep })).settlement,
    ).toEqual({ state: 'settled' });
    expect(slept).toEqual([]);

    let reads = 0;
    const same = await settleHistory(
      async () => {
        reads++;
        return read('a', now - 1000);
      },
      { now: () => now, sleep },
    );
    expect(same.settlement).toEqual({ state: 'settled' });
    expect(slept).toEqual([HISTORY_SETTLE_MS - 1000]);
    expect(reads).toBe(2);

    const answers = [read('a', now - 1000), read('b', now - 500)];
    const changed = await settleHistory(async () => answers.shift() as HistoryRead, { now: () => now, sleep });
    expect(changed.settlement.state).toBe('changed');

    const rewritten = [read('a', now - 1000), read('a', now - 10)];
    expect(
      (await settleHistory(async () => rewritten.shift() as HistoryRead, { now: () => now, sleep })).settlement.state,
    ).toBe('changed');
  });

  it('settles nothing from a source written more than five minutes in the future', async () => {
    const now = 1_000_000;
    const skewed = await settleHistory(async () => read('a', now + 6 * 60_000), {
      now: () => now,
      sleep: async () => {},
    });
    expect(skewed.settlement.state).toBe('clock-skew');
    const slept: number[] = [];
    const slightly = await settleHistory(async () => read('a', now + 60_000), {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    expect(slightly.settlement.state).toBe('settled');
    // Waited one settling period, not until the future write's time.
    expect(slept).toEqual([HISTORY_SETTLE_MS]);
  });
});
