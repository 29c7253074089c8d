import type { Dirent } from '../../safety/fs/list.js';
import path from 'node:path';
import type { Candidate } from '../../provider-api/candidate.js';
import type { RootStatus } from '../../model/types.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { managedPlace } from './layout.js';

// The Agent Manager deletes a worktree by renaming it to this, then removing it in the background.
export const KILO_DELETE = /^\.kilo-delete-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The repositories whose `.kilo/worktrees` may hold the Agent Manager's half-deleted worktrees:
 * every directory Kilo recorded (worktrees and main repositories alike), and the owner of each
 * managed worktree among them.
 */
export function ownerRepositories(directories: Iterable<string>, dataDir: string): Set<string> {
  const owners = new Set<string>();
  for (const directory of directories) {
    owners.add(path.resolve(directory));
    const place = managedPlace(directory, dataDir);
    if (place?.kind === 'repo') owners.add(path.resolve(place.owner));
  }
  return owners;
}

/**
 * `<R>/.kilo/worktrees/.kilo-delete-<uuid>` leftovers, contained in `<R>/.kilo/worktrees`. Each
 * such folder is read only as the data folder's owner's (rule 20): one that is, or is reached
 * through a link to, another user's folder is named in a root entry instead.
 */
export async function kiloDeleteLeftovers(
  owners: Iterable<string>,
  seen: Set<string>,
  homeOwner: Owner,
): Promise<{ candidates: Candidate[]; refused: RootStatus[] }> {
  const found: Candidate[] = [];
  const refused: RootStatus[] = [];
  for (const owner of owners) {
    const folder = path.join(owner, '.kilo', 'worktrees');
    const located = locate(folder, { owner: homeOwner, of: 'the owner of the Kilo data folder that names it' });
    if (located.state === 'refused') {
      if (!seen.has(folder)) refused.push({ provider: 'kilo', root: folder, ok: false, error: located.detail });
      seen.add(folder);
      continue;
    }
    if (located.state !== 'found') continue;
    let entries: Dirent[];
    try {
      entries = await readdirOrEmpty(folder);
    } catch {
      // A repository we cannot list holds nothing we could prove dead; its own checks report it.
      continue;
    }
    for (const entry of entries) {
      if (!KILO_DELETE.test(entry.name)) continue;
      const leftover = path.join(folder, entry.name);
      if (seen.has(leftover)) continue;
      seen.add(leftover);
      found.push({
        provider: 'kilo',
        kind: 'quarantine',
        path: leftover,
        root: folder,
        judgement: {
          decision: 'delete',
          reason: 'kilo-delete-leftover',
          detail: `${entry.name} is a worktree the Agent Manager renamed for deletion and did not finish removing`,
        },
        homeOwner,
      });
    }
  }
  return { candidates: found, refused };
}
