import { chmodSync, lchownSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { basisOf, besideBasis } from '../../../src/safety/owners/location-basis.js';
import { homeOwner, locate, type Located } from '../../../src/safety/owners/locations.js';
import { put } from '../../helpers/fs-fixtures.js';
import { tempDir } from '../../helpers/temp.js';
import { addUsers, giveTo, type RealUser } from '../../helpers/users.js';

const isRoot = process.geteuid?.() === 0;

/** A machine of two real users, each with a home, and a root-owned folder beside them. */
function machine(a: RealUser, b: RealUser) {
  const dir = tempDir('aj-locations-');
  chmodSync(dir, 0o755);
  const homeA = path.join(dir, 'home', 'a');
  const homeB = path.join(dir, 'home', 'b');
  mkdirSync(homeA, { recursive: true });
  mkdirSync(homeB, { recursive: true });
  const folder = (at: string, owner: RealUser | null) => {
    mkdirSync(at, { recursive: true });
    if (owner) giveTo(at, owner);
    return at;
  };
  const link = (to: string, at: string, owner: RealUser | null) => {
    mkdirSync(path.dirname(at), { recursive: true });
    symlinkSync(to, at);
    if (owner) lchownSync(at, owner.uid, owner.gid);
    return at;
  };
  const settle = () => {
    giveTo(homeA, a);
    giveTo(homeB, b);
  };
  return { dir, homeA, homeB, folder, link, settle };
}

const found = (owner: RealUser) => ({ state: 'found', owner: { uid: owner.uid, gid: owner.gid } });

describe.runIf(isRoot)('the resolver of locations (rule 20), with real users', () => {
  const [a, b] = isRoot ? (addUsers(2) as [RealUser, RealUser]) : ([] as unknown as [RealUser, RealUser]);

  it('follows a link in a home only to the home owner’s or root’s folders', () => {
    const m = machine(a, b);
    const bigDisk = m.folder(path.join(m.dir, 'big', 'a', 'codex'), a);
    const rootsOwn = m.folder(path.join(m.dir, 'srv', 'codex'), null);
    const theirs = m.folder(path.join(m.homeB, '.codex'), b);
    m.link(bigDisk, path.join(m.homeA, 'mine'), a);
    m.link(rootsOwn, path.join(m.homeA, 'roots'), a);
    m.link(theirs, path.join(m.homeA, '.codex'), a);
    m.folder(path.join(m.homeA, '.local', 'share', 'kilo'), a);
    m.settle();
    const basis = { home: m.homeA };

    expect(locate(path.join(m.homeA, '.local', 'share', 'kilo'), basis)).toMatchObject(found(a));
    expect(locate(path.join(m.homeA, 'mine'), basis)).toMatchObject(found(a));
    expect(locate(path.join(m.homeA, 'roots'), basis)).toMatchObject(found(a));
    const refused = locate(path.join(m.homeA, '.codex', 'worktrees'), basis);
    expect(refused).toMatchObject({ state: 'refused', path: path.join(m.homeA, '.codex', 'worktrees') });
    const detail = (refused as Extract<Located, { state: 'refused' }>).detail;
    expect(detail).toContain(`${path.join(m.homeA, '.codex')} is a link to ${theirs}`);
    expect(detail).toContain(`uid ${b.uid} (${b.name})`);
    expect(detail).toContain(`not to uid ${a.uid} (${a.name}) (the owner of ${m.homeA})`);
  });

  it('refuses a folder of another user between the home and the location, and a chain of links that ends in one', () => {
    const m = machine(a, b);
    const theirs = m.folder(path.join(m.homeB, 'storage'), b);
    // root's own link, pointing on at the other user's folder: the end of the chain decides.
    const hop = m.link(theirs, path.join(m.dir, 'srv', 'hop'), null);
    m.link(hop, path.join(m.homeA, '.config', 'Code'), a);
    m.settle();
    // A folder of B's in A's home (root made it so, or A let B write there).
    const planted = path.join(m.homeA, '.local');
    m.folder(path.join(planted, 'share'), b);
    giveTo(planted, b);

    expect(locate(path.join(m.homeA, '.config', 'Code', 'User'), { home: m.homeA })).toMatchObject({
      state: 'refused',
    });
    const between = locate(path.join(m.homeA, '.local', 'share'), { home: m.homeA });
    expect(between).toMatchObject({ state: 'refused' });
    expect((between as { detail: string }).detail).toContain(`${planted} belongs to uid ${b.uid}`);
  });

  it('takes a location outside the home (an XDG variable) as the home owner’s: above the owner’s own folders anyone’s, from there the owner’s', () => {
    const m = machine(a, b);
    const data = m.folder(path.join(m.dir, 'data', 'a', 'share'), a);
    const shared = m.folder(path.join(m.dir, 'shared'), b);
    chmodSync(shared, 0o777);
    const inShared = m.folder(path.join(shared, 'a-kilo'), a);
    const theirs = m.folder(path.join(m.dir, 'data', 'b', 'share'), b);
    m.settle();
    const basis = { home: m.homeA };

    expect(locate(data, basis)).toMatchObject(found(a));
    expect(locate(inShared, basis)).toMatchObject(found(a));
    expect(locate(theirs, basis)).toMatchObject({ state: 'refused' });
    m.link(theirs, path.join(m.dir, 'data', 'a', 'share', 'kilo'), a);
    expect(locate(path.join(data, 'kilo'), basis)).toMatchObject({ state: 'refused' });
  });

  it('names the owner of a location outside every home by the first entry that is not root’s, or by the uid its layout names', () => {
    const m = machine(a, b);
    const tmp = m.folder(path.join(m.dir, 'var', 'tmp'), null);
    chmodSync(tmp, 0o1777);
    const kanban = m.folder(path.join(tmp, 'vibe-kanban', 'worktrees'), a);
    const theirs = m.folder(path.join(m.homeB, 'worktrees'), b);
    m.settle();

    expect(locate(kanban, { outside: {} })).toMatchObject(found(a));
    expect(locate(kanban, { outside: { uid: a.uid } })).toMatchObject(found(a));
    expect(locate(kanban, { outside: { uid: b.uid } })).toMatchObject({ state: 'refused' });
    // A's link in the sticky folder, to B's: the link makes A the owner, and B's folder is not followed.
    m.link(theirs, path.join(tmp, 'planted'), a);
    const planted = locate(path.join(tmp, 'planted'), { outside: {} });
    expect(planted).toMatchObject({ state: 'refused' });
    expect((planted as { detail: string }).detail).toContain(`not to uid ${a.uid}`);
    // Root's own link to B's folder: the location is B's, and B's alone.
    m.link(theirs, path.join(tmp, 'roots-link'), null);
    expect(locate(path.join(tmp, 'roots-link'), { outside: {} })).toMatchObject(found(b));
  });

  it('judges a link by its own owner too (rule 28): another user’s link in a sticky folder to the owner’s own files is not followed', () => {
    const m = machine(a, b);
    const tmp = m.folder(path.join(m.dir, 'tmp'), null);
    chmodSync(tmp, 0o1777);
    const projects = m.folder(path.join(m.homeA, '.claude', 'projects'), a);
    m.settle();
    // B plants /tmp/claude-<A's uid>, pointing at A's own transcripts.
    const planted = m.link(projects, path.join(tmp, `claude-${a.uid}`), b);

    const refused = locate(planted, { outside: { uid: a.uid } });
    expect(refused).toMatchObject({ state: 'refused' });
    expect((refused as { detail: string }).detail).toContain(`is a link made by uid ${b.uid} (${b.name})`);
    expect(locate(path.join(planted, 'x'), { outside: { uid: a.uid } })).toMatchObject({ state: 'refused' });
    // The same link made by A, or by root, is followed to A's folder.
    const own = m.link(projects, path.join(tmp, 'own-link'), a);
    expect(locate(own, { outside: { uid: a.uid } })).toMatchObject(found(a));
    const roots = m.link(projects, path.join(tmp, 'roots-own-link'), null);
    expect(locate(roots, { outside: { uid: a.uid } })).toMatchObject(found(a));
    // In a home too: a link B made in a folder of A's that B may write to is not followed.
    const shared = m.folder(path.join(m.homeA, 'shared'), a);
    chmodSync(shared, 0o777);
    m.link(projects, path.join(shared, 'data'), b);
    expect(locate(path.join(shared, 'data'), { home: m.homeA })).toMatchObject({ state: 'refused' });
  });

  it('resolves a file the same way: a database that is a link to another user’s file is refused', () => {
    const m = machine(a, b);
    const theirs = put(path.join(m.homeB, 'state.vscdb'), 'theirs');
    const own = put(path.join(m.dir, 'big', 'a', 'state.vscdb'), 'mine');
    m.settle();
    giveTo(path.join(m.dir, 'big'), a);
    const storage = m.folder(path.join(m.homeA, '.config', 'Code', 'User', 'globalStorage'), a);
    m.link(theirs, path.join(storage, 'state.vscdb'), a);
    m.link(own, path.join(storage, 'other.vscdb'), a);

    expect(locate(path.join(storage, 'state.vscdb'), { home: m.homeA }, 'file')).toMatchObject({ state: 'refused' });
    expect(locate(path.join(storage, 'other.vscdb'), { home: m.homeA }, 'file')).toMatchObject(found(a));
    expect(locate(storage, { home: m.homeA }, 'file')).toMatchObject({ state: 'absent' });
  });

  it('answers absent for what is not there, unreadable for a dangling link (a disk not mounted here), and knows the home of a named location', () => {
    const m = machine(a, b);
    m.link(path.join(m.dir, 'nowhere'), path.join(m.homeA, '.watchfire'), a);
    m.settle();
    expect(locate(path.join(m.homeA, '.watchfire'), { home: m.homeA })).toMatchObject({
      state: 'unreadable',
      detail: expect.stringContaining('which is not there (a disk not mounted here?)'),
    });
    expect(locate(path.join(m.homeA, '.watchfire', 'deeper'), { home: m.homeA })).toMatchObject({
      state: 'unreadable',
    });
    expect(locate(path.join(m.homeA, 'missing', 'deeper'), { home: m.homeA })).toMatchObject({ state: 'absent' });
    expect(homeOwner(m.homeA)).toEqual({ uid: a.uid, gid: a.gid });
    expect(basisOf(path.join(m.homeA, 'x', 'y'), [m.homeB, m.homeA])).toEqual({ home: m.homeA });
    expect(basisOf(path.join(m.dir, 'srv'), [m.homeA])).toEqual({ outside: {} });
    const data = locate(m.homeA, { outside: {} });
    expect(besideBasis({ outside: {} }, data as Extract<Located, { state: 'found' }>)).toEqual({
      owner: { uid: a.uid, gid: a.gid },
      of: `the owner of ${m.homeA}`,
    });
  });
});
