import path from 'node:path';
import { isFolderOrLinkToOne, lstatOrNull, readdirOrEmpty } from '../../safety/fs.js';

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
    });
  }
  for (const entry of await readdirOrEmpty(home).catch(() => [])) {
    if (!SERVER_FOLDER.test(entry.name)) continue;
    const server = path.join(home, entry.name);
    const userData = path.join(server, 'data');
    if (!(await isFolderOrLinkToOne(path.join(userData, 'User')))) continue;
    found.push({ product: entry.name, userData, remote: true, extensionsDir: path.join(server, 'extensions') });
  }
  return found;
}

/** A user-data folder named in the config: its product is its folder name, its extensions unknown. */
export function namedEditorDir(userData: string): EditorDir {
  const resolved = path.resolve(userData);
  const remote = path.basename(resolved) === 'data' && SERVER_FOLDER.test(path.basename(path.dirname(resolved)));
  return {
    product: remote ? path.basename(path.dirname(resolved)) : path.basename(resolved),
    userData: resolved,
    remote,
    extensionsDir: remote ? path.join(path.dirname(resolved), 'extensions') : null,
  };
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
 * (the storage moved to a bigger disk) counts.
 */
export async function extensionStorages(editor: EditorDir, extensionId: string): Promise<string[]> {
  const found: string[] = [];
  for (const home of await globalStorageHomes(editor)) {
    const storage = path.join(home, extensionId.toLowerCase());
    if (await isFolderOrLinkToOne(storage)) found.push(storage);
  }
  return found;
}

/** The default profile's state database: VS Code always keeps one where it ran an extension. */
export const defaultStateDatabase = (editor: EditorDir): string =>
  path.join(editor.userData, 'User', 'globalStorage', 'state.vscdb');

/** Every `state.vscdb` of the product that exists: the default profile's and each profile's own. */
export async function stateDatabases(editor: EditorDir): Promise<string[]> {
  const found: string[] = [];
  for (const home of await globalStorageHomes(editor)) {
    const file = path.join(home, 'state.vscdb');
    if (await lstatOrNull(file).catch(() => null)) found.push(file);
  }
  return found;
}

/** The user's settings (default profile and each profile) and a remote host's machine settings. */
export async function settingsFiles(editor: EditorDir): Promise<string[]> {
  const user = path.join(editor.userData, 'User');
  const files = [path.join(user, 'settings.json')];
  for (const profile of await readdirOrEmpty(path.join(user, 'profiles')).catch(() => [])) {
    if (profile.isDirectory()) files.push(path.join(user, 'profiles', profile.name, 'settings.json'));
  }
  files.push(path.join(editor.userData, 'Machine', 'settings.json'));
  return files;
}
