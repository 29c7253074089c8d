import { lstatOrNull } from '../fs/stat.js';

/**
 * A folder named by a user's state file is looked at only when that user (the owner of the home
 * the state is in) owns it: a line written in one's own `.claude.json` must never make a pass run
 * as root judge someone else's trees.
 */
export async function ownedBy(folder: string, uid: number): Promise<boolean> {
  const stats = await lstatOrNull(folder).catch(() => null);
  return stats?.isDirectory() === true && stats.uid === uid;
}
