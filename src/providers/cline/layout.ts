import { clineConfig } from './config.js';
import path from 'node:path';
import type { ClaimContext } from '../../provider-api/provider.js';
import { locate, type Located } from '../../safety/owners/locations.js';
import { basisOf } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import {
  editorDirs,
  extensionStorages,
  namedEditorDir,
  stateDatabases,
  type EditorDir,
  type RefusedPlace,
} from '../../engines/vscode-storage/editors.js';

export { CLINE_USER_EMAILS, CLINE_USER_NAME, hashWorkingDir } from './checkpoints.js';

/** Cline's extension id; its storage folder is the id lowercased, its state row keyed by it. */
export const CLINE_EXTENSION = 'saoudrizwan.claude-dev';

/**
 * One place Cline keeps checkpoint repositories, with every history source that can name their
 * tasks. An editor's storage folders (the default profile's, and any a profile has) share that
 * product's history: its `state.vscdb` files and each storage's `state/taskHistory.json`. The
 * standalone host (the CLI, JetBrains) keeps the same layout in `~/.cline/data`.
 */
export interface ClineLocation {
  kind: 'editor' | 'standalone';
  /** How reports name it. */
  label: string;
  /** Folders holding `checkpoints/` and `tasks/`: the editor's storage folders, or the data folder. */
  storages: string[];
  editor: EditorDir | null;
  /** State databases of the product (editor only). */
  stateDatabases: string[];
  /** Cline's data folders of the same home (or named in the config): their Cline 4 session databases may name legacy tasks. */
  sessionDataDirs: string[];
  /** The owner of the home these folders belong to, as the resolver of locations answered it (rule 20). */
  homeOwner: Owner;
  /** Storage folders and files of this place not followed: a link on the way leads to another user's files. */
  refused: RefusedPlace[];
}

/** `~/.cline/data`, or `$CLINE_DIR/data` for the current user's own home. */
function clineDataDir(home: string, env: NodeJS.ProcessEnv): string {
  const own = env.HOME !== undefined && env.HOME !== '' && path.resolve(env.HOME) === path.resolve(home);
  if (own && env.CLINE_DIR && path.isAbsolute(env.CLINE_DIR)) return path.join(env.CLINE_DIR, 'data');
  return path.join(home, '.cline', 'data');
}

/**
 * Every place of the pass: from the config's `userDataDir` and `dataDir` when it names them, else
 * every VS Code product of every home that has Cline's storage folder, and each home's data folder.
 */
export async function clineLocations(ctx: ClaimContext): Promise<ClineLocation[]> {
  const section = clineConfig(ctx.config);
  const locations: ClineLocation[] = [];
  if (section.userDataDir || section.dataDir) {
    const dataDirs = (section.dataDir ?? []).map((dir) => path.resolve(dir));
    const standalone = dataDirs.map((dir) => ({ dir, located: locate(dir, basisOf(dir, ctx.homes)) }));
    const sessionDataDirs = standalone.flatMap(({ dir, located }) => (located.state === 'found' ? [dir] : []));
    for (const userData of section.userDataDir ?? []) {
      const located = await editorLocation(namedEditorDir(userData, ctx.homes), sessionDataDirs);
      if (located) locations.push(located);
    }
    for (const { dir, located } of standalone) {
      const found = standaloneLocation(dir, located);
      if (found) locations.push(found);
    }
    return locations;
  }
  for (const home of ctx.homes) {
    const data = clineDataDir(home, ctx.env);
    const located = locate(data, { home: path.resolve(home) });
    for (const editor of await editorDirs(home, ctx.env)) {
      const found = await editorLocation(editor, located.state === 'found' ? [data] : []);
      if (found) locations.push(found);
    }
    const found = standaloneLocation(data, located);
    if (found) locations.push(found);
  }
  return locations;
}

async function editorLocation(editor: EditorDir, sessionDataDirs: string[]): Promise<ClineLocation | null> {
  const places = await extensionStorages(editor, CLINE_EXTENSION);
  if (!places) return null;
  const databases = await stateDatabases(editor, places.basis);
  return {
    kind: 'editor',
    label: `${editor.product} (${editor.userData})`,
    storages: places.storages,
    editor,
    stateDatabases: databases.files,
    sessionDataDirs,
    homeOwner: places.owner,
    refused: [...places.refused, ...databases.refused],
  };
}

/** The standalone host's data folder, when it is there; a link to another user's files is refused (rule 20). */
function standaloneLocation(dataDir: string, located: Located): ClineLocation | null {
  if (located.state === 'absent' || located.state === 'unreadable') return null;
  const refused = located.state === 'refused';
  return {
    kind: 'standalone',
    label: dataDir,
    storages: refused ? [] : [dataDir],
    editor: null,
    stateDatabases: [],
    sessionDataDirs: refused ? [] : [dataDir],
    homeOwner: located.owner,
    refused: refused ? [{ root: dataDir, detail: located.detail }] : [],
  };
}
