import path from 'node:path';
import type { GatherContext } from '../../core/types.js';
import {
  editorDirs,
  extensionStorages,
  isFolder,
  namedEditorDir,
  stateDatabases,
  type EditorDir,
} from '../vscode/editors.js';

/** Cline's extension id; its storage folder is the id lowercased, its state row keyed by it. */
export const CLINE_EXTENSION = 'saoudrizwan.claude-dev';

/** The identity Cline gives every checkpoint repository (`initShadowGit`). */
export const CLINE_USER_NAME = 'Cline Checkpoint';
// checkpoint@cline.bot since 3.5; the per-task repositories of 3.0 to 3.4 used noreply@example.com.
export const CLINE_USER_EMAILS = ['checkpoint@cline.bot', 'noreply@example.com'];

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
      if (await isFolder(dataDir)) locations.push(standaloneLocation(dataDir));
    }
    return locations;
  }
  for (const home of ctx.homes) {
    const data = clineDataDir(home, ctx.env);
    for (const editor of await editorDirs(home, ctx.env)) {
      const located = await editorLocation(editor, [data]);
      if (located) locations.push(located);
    }
    if (await isFolder(data)) locations.push(standaloneLocation(data));
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

/**
 * Cline's `hashWorkingDir`: a 32-bit Java-style hash of the first workspace folder's path (UTF-16
 * code units), in decimal. It names `checkpoints/<hash>`. Collisions are possible, so it is only
 * a consistency check of a repository's `core.worktree` against its folder name.
 */
export function hashWorkingDir(workingDir: string): string {
  let hash = 0;
  for (let i = 0; i < workingDir.length; i++) hash = (hash * 31 + workingDir.charCodeAt(i)) >>> 0;
  return BigInt(hash).toString().slice(0, 13);
}

/** `checkpoint-<cwdHash>-<taskId>`: the subject of every checkpoint commit since 3.6.9. */
export const CHECKPOINT_SUBJECT = /^checkpoint-(\d+)-(.+)$/;
/** Subjects Cline writes that name no task: the first commit, and the 3.0 to 3.6.8 checkpoints. */
export const PLAIN_SUBJECTS = ['initial commit', 'checkpoint'];
/** `task-<taskId>`: the branch of each task in the repositories of 3.5 to 3.6.8. */
export const TASK_BRANCH = /^task-(.+)$/;
