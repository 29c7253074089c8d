import path from 'node:path';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import type { EditorDir } from './editors.js';
import { isPlainObject } from '../../util/plain-object.js';
import { readJsonSource } from './files.js';

/**
 * The versions of an extension a product has installed, from its `extensions.json` files (the
 * extensions folder's, and each profile's own), which VS Code rewrites on every install,
 * update and removal. Null when none of them can be read or none names the extension: then
 * nothing is known, and nothing is claimed about which format the installed extension reads.
 */
export async function installedVersions(editor: EditorDir, extensionId: string): Promise<string[] | null> {
  const files: string[] = [];
  if (editor.extensionsDir) files.push(path.join(editor.extensionsDir, 'extensions.json'));
  const profiles = path.join(editor.userData, 'User', 'profiles');
  for (const profile of await readdirOrEmpty(profiles).catch(() => [])) {
    if (profile.isDirectory()) files.push(path.join(profiles, profile.name, 'extensions.json'));
  }
  const versions: string[] = [];
  for (const file of files) {
    let source: Awaited<ReturnType<typeof readJsonSource>>;
    try {
      source = await readJsonSource(file);
    } catch {
      // An unreadable list says nothing about versions; the report just claims less.
      continue;
    }
    if (source.state !== 'read' || !Array.isArray(source.value)) continue;
    for (const entry of source.value) {
      if (!isPlainObject(entry) || !isPlainObject(entry.identifier)) continue;
      const id = entry.identifier.id;
      if (typeof id !== 'string' || id.toLowerCase() !== extensionId.toLowerCase()) continue;
      if (typeof entry.version === 'string') versions.push(entry.version);
    }
  }
  return versions.length > 0 ? versions : null;
}

/** The major version of a semver string, or null when it has none. */
function majorOf(version: string): number | null {
  const match = /^v?(\d+)\./.exec(version.trim());
  return match ? Number(match[1]) : null;
}

/** True when every installed version is known and at least `major`. */
export function allAtLeast(versions: readonly string[] | null, major: number): boolean {
  if (!versions || versions.length === 0) return false;
  return versions.every((version) => {
    const found = majorOf(version);
    return found !== null && found >= major;
  });
}
