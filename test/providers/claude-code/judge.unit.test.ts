import { describe, expect, it } from 'vitest';
import {
  judgeEmptySlugFolder,
  judgeSessionFolder,
  judgeSessionFolders,
  type ClaudeEvidence,
  type JudgedRecord,
} from '../../../src/providers/claude-code/judge.js';
import { isSessionName, isSlugName, sessionFolderOf, slugOf } from '../../../src/providers/claude-code/layout.js';

const ROOT = '/tmp/claude-1000';
const SID = '0b4d6e58-8f2a-4c1e-9d3b-7a6f5e4d3c2b';
const folder = { path: `${ROOT}/-work-shop/${SID}`, slug: '-work-shop', sid: SID };
const none: ClaudeEvidence = {
  problems: [],
  configDirs: [],
  records: [],
  shells: [],
  carriers: [],
  running: [],
  unseen: [],
};
const record = (fields: Partial<JudgedRecord>): JudgedRecord => ({
  file: '/home/ana/.claude/sessions/42.json',
  pid: 42,
  sessionId: 'another',
  cwd: '/elsewhere',
  slugs: ['-elsewhere'],
  life: { state: 'live' },
  ...fields,
});

describe('the claude-code judge', () => {
  it('reads the layout as Claude Code writes it', () => {
    expect(slugOf('/tmp/cc/My Proj.v2_x')).toBe('-tmp-cc-My-Proj-v2-x');
    // Each UTF-16 unit that is no ASCII letter or digit is one `-`: é is one, 🦀 (a surrogate pair) two.
    expect(slugOf('/é/🦀')).toBe('-----');
    const long = `/${'a'.repeat(250)}`;
    expect(slugOf(long)).toMatch(new RegExp(`^-${'a'.repeat(199)}-[0-9a-z]+$`));
    expect(isSessionName(SID)).toBe(true);
    expect(isSessionName('session_01abcdefghijkmnopqrstuvwxy')).toBe(true);
    expect(isSessionName('cse_01abcdefghijkmnopqrstuvwxy')).toBe(true);
    expect(isSessionName('tasks')).toBe(false);
    expect(isSlugName('fswatch-probe-Ab12Cd')).toBe(false);
    expect(sessionFolderOf(`${ROOT}/-work-shop/${SID}/tasks/b1.output`, [ROOT])).toBe(folder.path);
    expect(sessionFolderOf(`/real/claude-1000/-work-shop/${SID}/tasks/b1.output`, [ROOT, '/real/claude-1000'])).toBe(
      folder.path,
    );
    expect(sessionFolderOf(`${ROOT}/fswatch-probe-Ab12Cd/probe`, [ROOT])).toBeNull();
  });

  it('proves a folder dead only when nothing names it, and says why', () => {
    expect(judgeSessionFolder(folder, none)).toMatchObject({ decision: 'delete', reason: 'session-ended' });
    const stale = record({ sessionId: SID, life: { state: 'dead', why: 'pid 42 is gone' } });
    expect(judgeSessionFolder(folder, { ...none, records: [stale] }).detail).toContain(
      'its registry record /home/ana/.claude/sessions/42.json is stale (pid 42 is gone)',
    );
  });

  it('keeps by session id and by the slug of the cwd; refuses what a record of unknown life names', () => {
    expect(judgeSessionFolder(folder, { ...none, records: [record({ sessionId: SID })] }).reason).toBe('session-live');
    expect(judgeSessionFolder(folder, { ...none, records: [record({ slugs: ['-work-shop'] })] }).reason).toBe(
      'session-live',
    );
    expect(
      judgeSessionFolder(folder, {
        ...none,
        records: [record({ slugs: ['-work-shop'], life: { state: 'unknown', why: 'another pid domain' } })],
      }),
    ).toMatchObject({ decision: 'refused', reason: 'liveness-unknown' });
    expect(judgeEmptySlugFolder('-work-shop', { ...none, records: [record({ slugs: ['-work-shop'] })] }).decision).toBe(
      'kept',
    );
    expect(judgeEmptySlugFolder('-work-shop', none)).toMatchObject({
      decision: 'delete',
      reason: 'project-folder-empty',
    });
  });

  it('matches a record by any spelling of its cwd, and by every project where its cwd cannot be resolved (rule 25)', () => {
    const linked = record({ cwd: '/home/ana/shop', slugs: ['-home-ana-shop', '-work-shop'] });
    expect(judgeSessionFolder(folder, { ...none, records: [linked] }).reason).toBe('session-live');
    const unresolved = record({
      cwd: '/mnt/data/app',
      slugs: ['-mnt-data-app'],
      cwdUnknown: '/mnt/data is a link to nothing',
    });
    expect(judgeSessionFolder(folder, { ...none, records: [unresolved] })).toMatchObject({
      decision: 'kept',
      reason: 'session-live',
      detail: expect.stringContaining('/mnt/data/app, which cannot be resolved, so it may be any project'),
    });
    expect(judgeEmptySlugFolder('-work-shop', { ...none, records: [unresolved] }).decision).toBe('kept');
  });

  it('keeps every session folder of the project a running Claude Code works in, record or not, before a record of unknown life', () => {
    const running = {
      pid: 7,
      named: '7 (claude, run by ana)',
      cwd: '/work/shop',
      slugs: ['-work-shop'],
      config: { state: 'default' } as const,
    };
    const unknown = record({ slugs: ['-work-shop'], life: { state: 'unknown', why: 'another pid domain' } });
    for (const each of [folder, { ...folder, sid: null }])
      expect(judgeSessionFolder(each, { ...none, running: [running], records: [unknown] })).toMatchObject({
        decision: 'kept',
        reason: 'session-live',
        detail: expect.stringContaining('process 7 (claude, run by ana) has its working directory in /work/shop'),
      });
    expect(judgeEmptySlugFolder('-work-shop', { ...none, running: [running] }).decision).toBe('kept');
    expect(judgeSessionFolder(folder, { ...none, running: [{ ...running, slugs: ['-work-cart'] }] }).decision).toBe(
      'delete',
    );
  });

  it('fails closed on an unreadable source, and on a process of the uid whose environment is hidden', () => {
    expect(judgeSessionFolder(folder, { ...none, problems: ['sessions/1.json cannot be read'] })).toMatchObject({
      decision: 'refused',
      reason: 'source-unreadable',
    });
    expect(judgeSessionFolder(folder, { ...none, unseen: [{ who: 'process 7', why: 'EACCES' }] })).toMatchObject({
      decision: 'refused',
      reason: 'liveness-unknown',
      detail: `whether process 7 carries CLAUDE_CODE_SESSION_ID=${SID} is unknown: EACCES`,
    });
    // The older layout has no session id to carry.
    expect(
      judgeSessionFolder({ ...folder, sid: null }, { ...none, unseen: [{ who: 'process 7', why: 'x' }] }).decision,
    ).toBe('delete');
  });

  it('keeps what a live adopted shell writes into, and refuses in-use what a shell that outlived its Claude Code carries', () => {
    const shell = { file: '/a.json', pid: 9, outputPath: `${folder.path}/tasks/b1.output`, folder: folder.path };
    expect(judgeSessionFolder(folder, { ...none, shells: [{ ...shell, life: { state: 'live' } }] }).reason).toBe(
      'adopted-shell-live',
    );
    expect(
      judgeSessionFolder(folder, { ...none, shells: [{ ...shell, life: { state: 'dead', why: 'gone' } }] }).decision,
    ).toBe('delete');
    const carrier = { pid: 11, named: '11 (bash, run by ana)', sessionId: SID, parentPid: 10 };
    expect(
      judgeSessionFolder(folder, { ...none, carriers: [{ ...carrier, parentLife: { state: 'live' } }] }).reason,
    ).toBe('session-process-live');
    expect(
      judgeSessionFolder(folder, {
        ...none,
        carriers: [{ ...carrier, parentLife: { state: 'dead', why: 'pid 10 is gone' } }],
      }),
    ).toEqual({
      decision: 'refused',
      reason: 'in-use',
      detail: `process 11 (bash, run by ana) carries CLAUDE_CODE_SESSION_ID=${SID}, but its Claude Code (CLAUDE_PID=10) is gone (pid 10 is gone): a background shell that outlived its session and may still write here; stopping process 11 frees the space`,
    });
  });

  it('keeps a folder a kept folder links into, through chains of links', () => {
    const a = { path: `${ROOT}/-w/${SID}`, slug: '-w', sid: SID };
    const b = {
      path: `${ROOT}/-w/11111111-1111-1111-1111-111111111111`,
      slug: '-w',
      sid: '11111111-1111-1111-1111-111111111111',
    };
    const c = {
      path: `${ROOT}/-x/22222222-2222-2222-2222-222222222222`,
      slug: '-x',
      sid: '22222222-2222-2222-2222-222222222222',
    };
    const live = { ...none, records: [record({ sessionId: c.sid })] };
    const links = [
      { link: `${b.path}/tasks/b2.output`, from: b.path, into: a.path },
      { link: `${c.path}/tasks/b3.output`, from: c.path, into: b.path },
    ];
    const verdicts = judgeSessionFolders([a, b, c], links, live);
    expect([a, b, c].map((each) => verdicts.get(each.path)?.reason)).toEqual([
      'linked-from-live-session',
      'linked-from-live-session',
      'session-live',
    ]);
    expect(judgeSessionFolders([a, b, c], links, none).get(a.path)?.decision).toBe('delete');
  });
});
