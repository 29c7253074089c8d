import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { PassResult } from '../../../src/pass/pass.js';
import { diffInventories, inventory, type Entry } from '../../helpers/inventory.js';
import { pass } from '../../helpers/pass.js';
import { tempDir } from '../../helpers/temp.js';
import { kiloPaths, makeRepo, projectIdOf, type KiloPaths } from './fixtures.js';

export interface Scene extends KiloPaths {
  root: string;
  /** The owner repository R. */
  repo: string;
  projectId: string;
  /** Where the pass writes its config and report (outside the inventoried tree). */
  work: string;
}

/** A home with Kilo installed and one owner repository, in a fresh temp folder. */
export function scene(app: 'kilo' | 'opencode' = 'kilo'): Scene {
  const root = tempDir('aj-kilo-');
  const home = path.join(root, 'home');
  const paths = kiloPaths(home, app);
  const repo = makeRepo(path.join(root, 'projects', 'app'));
  return { root, ...paths, repo, projectId: projectIdOf(repo), work: tempDir('aj-kilo-run-') };
}

/** A scene whose home is reached through a link as well: `<root>/home -> <root>/data/home`. */
export interface LinkedScene extends Scene {
  /** `<root>/home`, the link; `home`, `data` and `state` are spelled canonically. */
  link: string;
  /** A path of the scene as spelled through the link. */
  throughLink(p: string): string;
}

export function linkedScene(app: 'kilo' | 'opencode' = 'kilo'): LinkedScene {
  const root = tempDir('aj-kilo-');
  const home = path.join(root, 'data', 'home');
  const link = path.join(root, 'home');
  mkdirSync(home, { recursive: true });
  symlinkSync(home, link);
  const paths = kiloPaths(home, app);
  const repo = makeRepo(path.join(root, 'projects', 'app'));
  return {
    root,
    ...paths,
    repo,
    projectId: projectIdOf(repo),
    work: tempDir('aj-kilo-run-'),
    link,
    throughLink: (p) => path.join(link, path.relative(home, p)),
  };
}

/** The environment of a pass whose user is not the home's owner: no XDG variable applies. */
export const FOREIGN_ENV: NodeJS.ProcessEnv = {
  HOME: '/nonexistent-home',
  XDG_DATA_HOME: '',
  XDG_STATE_HOME: '',
  KILO_DB: '',
  OPENCODE_DB: '',
};

export function runKilo(
  s: Scene,
  options: { reportOnly?: boolean; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv } = {},
): Promise<PassResult> {
  return pass({
    dir: s.work,
    config: { homes: [s.home], minAge: '0s', ...options.config },
    only: ['kilo'],
    reportOnly: options.reportOnly ?? false,
    env: { ...FOREIGN_ENV, ...options.env },
    // The processes these tests start are their own: another file's git elsewhere must not count.
    processScope: 'own',
  });
}

export function snapshotOf(s: Scene): Map<string, Entry> {
  return inventory(s.root);
}

/**
 * Asserts that between two inventories exactly the given folders went away (with everything in
 * them), and that nothing else changed but the folders that held them, Kilo's lock folder and the
 * files SQLite keeps beside a database it opened. `pins` are the ref files of dropped pins.
 */
export function expectOnlyRemoved(
  s: Scene,
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  removed: string[],
  pins: string[] = [],
): void {
  const relative = (p: string) => path.relative(s.root, p);
  // Dropping a pin is git's update-ref -d: the ref file goes, git prunes the ref folders it
  // leaves empty, and its own lock files come and go in those folders and in the git dir.
  const pinFolders: string[] = [];
  for (const pin of pins) {
    const refs = pin.slice(0, pin.indexOf(`${path.sep}refs${path.sep}`) + `${path.sep}refs`.length);
    for (let folder = path.dirname(pin); folder.length > refs.length; folder = path.dirname(folder))
      pinFolders.push(relative(folder));
    pinFolders.push(relative(refs), relative(path.dirname(refs)));
  }
  const diff = diffInventories(before, after);
  const gone = [...removed, ...pins].map(relative);
  const inside = (key: string) => gone.some((folder) => key === folder || key.startsWith(`${folder}${path.sep}`));
  // SQLite may make and remove a database's -wal and -shm files beside it, in the data folder.
  const sqliteSidecar = (key: string) => /\.db-(wal|shm)$/.test(key) || key === relative(s.data);
  const lockFolder = (key: string) =>
    key.startsWith(relative(path.join(s.state, 'locks'))) ||
    key === relative(s.state) ||
    relative(s.state).startsWith(`${key}${path.sep}`);
  expect(diff.removed.filter((key) => !inside(key) && !lockFolder(key) && !pinFolders.includes(key))).toEqual([]);
  for (const folder of removed.map(relative)) expect(diff.removed).toContain(folder);
  const parents = new Set([...gone.map((key) => path.dirname(key)), ...pinFolders]);
  expect(diff.changed.filter((key) => !parents.has(key) && !sqliteSidecar(key) && !lockFolder(key))).toEqual([]);
  expect(diff.added.filter((key) => !sqliteSidecar(key) && !lockFolder(key))).toEqual([]);
}

/**
 * Asserts that between `before` and now exactly the garbage files went, and nothing changed but the
 * folders that held them, SQLite's sidecars in the data folder and Kilo's lock folder (made for
 * the pass's lock where there was none).
 */
export function expectOnlyGarbageGone(s: Scene, before: Map<string, Entry>, garbage: string[]): void {
  const diff = diffInventories(before, snapshotOf(s));
  const gone = garbage.map((file) => path.relative(s.root, file));
  expect(diff.removed.sort()).toEqual([...gone].sort());
  const folders = new Set(gone.map((key) => path.dirname(key)));
  const state = path.relative(s.root, s.state);
  const aside = (key: string) =>
    /\.db-(wal|shm)$/.test(key) ||
    key === state ||
    key.startsWith(`${state}${path.sep}`) ||
    state.startsWith(`${key}${path.sep}`);
  expect(diff.changed.filter((key) => !folders.has(key) && !aside(key))).toEqual([]);
  expect(diff.added.filter((key) => !aside(key))).toEqual([]);
}
