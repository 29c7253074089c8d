import path from 'node:path';
import type { GatherContext } from '../../core/types.js';
import { isFolderOrLinkToOne } from '../../safety/fs.js';
import { editorDirs, extensionStorages, namedEditorDir, stateDatabases, type EditorDir } from '../vscode/editors.js';

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
export async function clineLocations(ctx: GatherContext): Promise<ClineLocation[]> {
  const section = ctx.config.providers.cline;
  const locations: ClineLocation[] = [];
  if (section.userDataDir || section.dataDir) {
    const dataDirs = (section.dataDir ?? []).map((dir) => path.resolve(dir));
    for (const userData of section.userDataDir ?? []) {
      const located = await editorLocation(namedEditorDir(userData), dataDirs);
      if (located) locations.push(located);
    }
    for (const dataDir of dataDirs) {
      if (await isFolderOrLinkToOne(dataDir)) locations.push(standaloneLocation(dataDir));
    }
    return locations;
  }
  for (const home of ctx.homes) {
    const data = clineDataDir(home, ctx.env);
    for (const editor of await editorDirs(home, ctx.env)) {
      const located = await editorLocation(editor, [data]);
      if (located) locations.push(located);
    }
    if (await isFolderOrLinkToOne(data)) locations.push(standaloneLocation(data));
  }
  return locations;
}

async function editorLocation(editor: EditorDir, sessionDataDirs: string[]): Promise<ClineLocation | null> {
  const storages = await extensionStorages(editor, CLINE_EXTENSION);
  if (storages.length === 0) return null;
  return {
    kind: 'editor',
    label: `${editor.product} (${editor.userData})`,
    storages,
    editor,
    stateDatabases: await stateDatabases(editor),
    sessionDataDirs,
  };
}

function standaloneLocation(dataDir: string): ClineLocation {
  return {
    kind: 'standalone',
    label: dataDir,
    storages: [dataDir],
    editor: null,
    stateDatabases: [],
    sessionDataDirs: [dataDir],
  };
}
