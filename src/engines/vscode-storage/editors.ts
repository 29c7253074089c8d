import path from 'node:path';
import { isFolderOrLinkToOne } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { locate } from '../../safety/owners/locations.js';
import { basisOf, besideBasis, type LocationBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';

/**
 * One VS Code user-data folder (a "product": VS Code, Insiders, VSCodium, Cursor, Windsurf, or the
 * data folder of a remote host's server). Every extension keeps its files in
 * `<userData>/User/globalStorage/<publisher.name>` and its global state in a row of
 * `<userData>/User/globalStorage/state.vscdb` (and of each profile's own `state.vscdb`).
 */
export interface EditorDir {
  /** How reports name it: the product folder (`Code`, `Cursor`) or the server folder (`.vscode-server`). */
  product: string;
  userData: string;
  /** A remote host's server: its global state is kept by the client, so it may have no state database. */
  remote: boolean;
  /** Where this product installs extensions (`extensions.json` there names their versions); null when unknown. */
  extensionsDir: string | null;
  /** Whose its folders are: the home it is in, or else the owner of a folder the config names (rule 20). */
  basis: LocationBasis;
}

/**
 * Where each desktop product installs its extensions, by its user-data folder name (the product's
 * `dataFolderName`). A product not listed here has unknown versions, which only means that the
 * report cannot say whether its installed extension still reads an old format.
 */
const EXTENSIONS_FOLDER: Record<string, string> = {
  Code: '.vscode',
  'Code - Insiders': '.vscode-insiders',
  'Code - OSS': '.vscode-oss',
  VSCodium: '.vscode-oss',
  'VSCodium - Insiders': '.vscodium-insiders',
  Cursor: '.cursor',
  Windsurf: '.windsurf',
  Trae: '.trae',
  Kiro: '.kiro',
  Positron: '.positron',
};

// `~/.vscode-server`, `~/.vscode-server-insiders`, `~/.cursor-server`, `~/.windsurf-server`, …
const SERVER_FOLDER = /^\.[A-Za-z0-9._-]*-server(-insiders)?$/;

/**
 * Every VS Code user-data folder of a home: each folder of the config home (`$XDG_CONFIG_HOME`
 * for the current user's own home, else `~/.config`) that has a `User` folder, and each remote
 * server's `data` folder. Which of them hold an extension's files is asked separately.
 */
export async function editorDirs(home: string, env: NodeJS.ProcessEnv): Promise<EditorDir[]> {
  const own = env.HOME !== undefined && env.HOME !== '' && path.resolve(env.HOME) === path.resolve(home);
  const configHome =
    own && env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(home, '.config');
  const found: EditorDir[] = [];
  for (const entry of await readdirOrEmpty(configHome).catch(() => [])) {
    const userData = path.join(configHome, entry.name);
    if (!(await isFolderOrLinkToOne(path.join(userData, 'User')))) continue;
    const extensions = EXTENSIONS_FOLDER[entry.name];
    found.push({
      product: entry.name,
      userData,
      remote: false,
      extensionsDir: extensions ? path.join(home, extensions, 'extensions') : null,
      basis: { home: path.resolve(home) },
    });
  }
  for (const entry of await readdirOrEmpty(home).catch(() => [])) {
    if (!SERVER_FOLDER.test(entry.name)) continue;
    const server = path.join(home, entry.name);
    const userData = path.join(server, 'data');
    if (!(await isFolderOrLinkToOne(path.join(userData, 'User')))) continue;
    found.push({
      product: entry.name,
      userData,
      remote: true,
      extensionsDir: path.join(server, 'extensions'),
      basis: { home: path.resolve(home) },
    });
  }
  return found;
}

/**
 * A user-data folder named in the config: its product is its folder name, its extensions unknown.
 * The operator's choice, still checked against the home of the pass it lies in, if any.
 */
export function namedEditorDir(userData: string, homes: readonly string[]): EditorDir {
  const resolved = path.resolve(userData);
  const remote = path.basename(resolved) === 'data' && SERVER_FOLDER.test(path.basename(path.dirname(resolved)));
  return {
    product: remote ? path.basename(path.dirname(resolved)) : path.basename(resolved),
    userData: resolved,
    remote,
    extensionsDir: remote ? path.join(path.dirname(resolved), 'extensions') : null,
    basis: basisOf(resolved, homes),
  };
}

/** A location of a product not followed, and why (rule 20): reported on the provider's root entries. */
export interface RefusedPlace {
  root: string;
  detail: string;
}

/** Where an extension lives in one product, every folder and file of it through the resolver of locations. */
export interface ExtensionPlaces {
  /** The owner of the product's folders: the home's owner, as the resolver answered it. */
  owner: Owner;
  /** Whose the product's other files are (its state databases, its settings). */
  basis: LocationBasis;
  /** The extension's storage folders found. */
  storages: string[];
  /** The user-data folder or storage folders not followed: a link on the way leads to another user's files. */
  refused: RefusedPlace[];
}

/** `<userData>/User/globalStorage` and each profile's `<userData>/User/profiles/<id>/globalStorage`. */
async function globalStorageHomes(editor: EditorDir): Promise<string[]> {
  const user = path.join(editor.userData, 'User');
  const homes = [path.join(user, 'globalStorage')];
  for (const profile of await readdirOrEmpty(path.join(user, 'profiles')).catch(() => [])) {
    if (profile.isDirectory()) homes.push(path.join(user, 'profiles', profile.name, 'globalStorage'));
  }
  return homes;
}

/**
 * The extension's storage folders in this product (the default profile's, and any a profile has of
 * its own): `<globalStorage>/<publisher.name>`, lowercased as VS Code names it. A link to a folder
 * of the home's owner's (the storage moved to a bigger disk) counts; a link to another user's
 * files does not (rule 20), and is answered among `refused`. Null where the product has none.
 */
export async function extensionStorages(editor: EditorDir, extensionId: string): Promise<ExtensionPlaces | null> {
  const userData = locate(editor.userData, editor.basis);
  if (userData.state === 'absent' || userData.state === 'unreadable') return null;
  if (userData.state === 'refused')
    return {
      owner: userData.owner,
      basis: editor.basis,
      storages: [],
      refused: [{ root: editor.userData, detail: userData.detail }],
    };
  const basis = besideBasis(editor.basis, userData);
  const places: ExtensionPlaces = { owner: userData.owner, basis, storages: [], refused: [] };
  for (const home of await globalStorageHomes(editor)) {
    const storage = path.join(home, extensionId.toLowerCase());
    const located = locate(storage, basis);
    if (located.state === 'found') places.storages.push(storage);
    else if (located.state === 'refused') places.refused.push({ root: storage, detail: located.detail });
  }
  return places.storages.length > 0 || places.refused.length > 0 ? places : null;
}

/** The default profile's state database: VS Code always keeps one where it ran an extension. */
export const defaultStateDatabase = (editor: EditorDir): string =>
  path.join(editor.userData, 'User', 'globalStorage', 'state.vscdb');

/**
 * Every `state.vscdb` of the product that exists: the default profile's and each profile's own.
 * One that is a link to another user's file is left out and answered in `refused` (rule 20).
 */
export async function stateDatabases(
  editor: EditorDir,
  basis: LocationBasis = editor.basis,
): Promise<{ files: string[]; refused: RefusedPlace[] }> {
  const found: { files: string[]; refused: RefusedPlace[] } = { files: [], refused: [] };
  for (const home of await globalStorageHomes(editor)) {
    const file = path.join(home, 'state.vscdb');
    const located = locate(file, basis, 'file');
    if (located.state === 'refused') found.refused.push({ root: file, detail: located.detail });
    else if (located.state === 'found') found.files.push(file);
  }
  return found;
}

/**
 * The user's settings (default profile and each profile) and a remote host's machine settings,
 * whether they exist or not; one that is a link to another user's file is answered in `refused`.
 */
export async function settingsFiles(
  editor: EditorDir,
  basis: LocationBasis = editor.basis,
): Promise<{ files: string[]; refused: RefusedPlace[] }> {
  const user = path.join(editor.userData, 'User');
  const files = [path.join(user, 'settings.json')];
  for (const profile of await readdirOrEmpty(path.join(user, 'profiles')).catch(() => [])) {
    if (profile.isDirectory()) files.push(path.join(user, 'profiles', profile.name, 'settings.json'));
  }
  files.push(path.join(editor.userData, 'Machine', 'settings.json'));
  const found: { files: string[]; refused: RefusedPlace[] } = { files: [], refused: [] };
  for (const file of files) {
    const located = locate(file, basis, 'file');
    if (located.state === 'refused') found.refused.push({ root: file, detail: located.detail });
    else found.files.push(file);
  }
  return found;
}
