import { lstatOrNull } from '../../safety/fs/stat.js';
import type { LocationBasis } from '../../safety/owners/location-basis.js';

/** Repositories a tool's own state names, for the anchors that only its state can resolve. */
export interface StateFolders {
  /** The repositories' top folders, each owned by the owner of the home whose state names it. */
  repos: Array<{ path: string; basis: LocationBasis }>;
  /** State files that could not be read, each with a sentence naming the file. */
  problems: Array<{ file: string; error: string }>;
}

/**
 * A folder named by a user's state file is looked at only when that user (the owner of the home
 * the state is in) owns it: a line written in one's own `.claude.json` must never make a pass run
 * as root judge someone else's trees.
 */
export async function ownedBy(folder: string, uid: number): Promise<boolean> {
  const stats = await lstatOrNull(folder).catch(() => null);
  return stats?.isDirectory() === true && stats.uid === uid;
}
