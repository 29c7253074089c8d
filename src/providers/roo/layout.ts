import { rooConfig } from './config.js';
import type { ClaimContext } from '../../provider-api/provider.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import {
  editorDirs,
  extensionStorages,
  namedEditorDir,
  settingsFiles,
  stateDatabases,
  type EditorDir,
  type RefusedPlace,
} from '../../engines/vscode-storage/editors.js';

/** Roo Code, or the Kilo Code extension of 5.x and before (a Roo fork with the same layout). */
export interface RooExtension {
  key: 'roo' | 'kilo';
  /** `publisher.name`: the storage folder is it lowercased, the state row is keyed by it in any case. */
  id: string;
  label: string;
  /** The settings section of `<section>.customStoragePath`. */
  settingsSection: string;
  /** The identity `initShadowGit` gives every checkpoint repository. */
  userName: string;
  userEmail: string;
  /**
   * From this major version on, the extension with this id no longer reads the old tasks and their
   * repositories (Kilo Code 7 is a new extension under the old id); null when every version does.
   */
  legacyFromMajor: number | null;
  /** How a person drops a task that version no longer reads. */
  howToDrop: string;
}

export const ROO: RooExtension = {
  key: 'roo',
  id: 'RooVeterinaryInc.roo-cline',
  label: 'Roo Code',
  settingsSection: 'roo-cline',
  userName: 'Roo Code',
  userEmail: 'noreply@example.com',
  legacyFromMajor: null,
  howToDrop: 'delete the task in Roo Code',
};

export const KILO_LEGACY: RooExtension = {
  key: 'kilo',
  id: 'kilocode.kilo-code',
  label: 'Kilo Code',
  settingsSection: 'kilo-code',
  userName: 'Kilo Code',
  userEmail: 'noreply@example.com',
  legacyFromMajor: 6,
  howToDrop:
    "Kilo Code 7 offers no way to delete the old extension's tasks: import what you need (Kilo 7 offers to migrate legacy sessions), then remove the task folder by hand",
};

const ROO_EXTENSIONS: Record<RooExtension['key'], RooExtension> = { roo: ROO, kilo: KILO_LEGACY };

/** One product's storage of one extension, with every history source and setting of that product. */
export interface RooLocation {
  extension: RooExtension;
  editor: EditorDir;
  /** `<globalStorage>/<id>` folders: where the checkpoint repositories always are (`tasks/<id>/checkpoints`). */
  storages: string[];
  stateDatabases: string[];
  settingsFiles: string[];
  /** The owner of the home these folders belong to, as the resolver of locations answered it (rule 20). */
  homeOwner: Owner;
  /** Whose a custom storage path the settings name is: the same home's owner's. */
  basis: LocationBasis;
  /** Storage folders and files not followed: a link on the way leads to another user's files. */
  refused: RefusedPlace[];
}

/** Every product of every home (or every `userDataDir` of the config) that has the extension's storage. */
export async function rooLocations(ctx: ClaimContext): Promise<RooLocation[]> {
  const section = rooConfig(ctx.config);
  const editors: EditorDir[] = [];
  if (section.userDataDir) editors.push(...section.userDataDir.map((dir) => namedEditorDir(dir, ctx.homes)));
  else for (const home of ctx.homes) editors.push(...(await editorDirs(home, ctx.env)));
  const locations: RooLocation[] = [];
  for (const editor of editors) {
    for (const key of section.extensions) {
      const extension = ROO_EXTENSIONS[key];
      const places = await extensionStorages(editor, extension.id);
      if (!places) continue;
      const databases = await stateDatabases(editor, places.basis);
      const settings = await settingsFiles(editor, places.basis);
      locations.push({
        extension,
        editor,
        storages: places.storages,
        stateDatabases: databases.files,
        settingsFiles: settings.files,
        homeOwner: places.owner,
        basis: places.basis,
        refused: [...places.refused, ...databases.refused, ...settings.refused],
      });
    }
  }
  return locations;
}
