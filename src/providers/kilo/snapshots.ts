import path from 'node:path';
import { readdirOrEmpty, type Dirent } from '../../safety/fs/list.js';
import { findQuarantines, quarantinedName } from '../../safety/removal/quarantine.js';
import { PROJECT_ID, snapshotRoot, WORKTREE_HASH } from './layout.js';

export interface SnapshotRepo {
  projectId: string;
  /** `<data>/snapshot/<project-id>/<hash>`, a git dir. */
  gitdir: string;
  /** `<hash>`: sha1 hex of the worktree path it was made for. */
  name: string;
}

interface SnapshotQuarantine {
  path: string;
  /** The repository folder name it was renamed from. */
  original: string;
  projectDir: string;
}

/** What lies under `<data>/snapshot/`. */
export interface SnapshotListing {
  repos: SnapshotRepo[];
  quarantines: SnapshotQuarantine[];
  /** Old per-project git dirs `snapshot/<project-id>/` (HEAD and objects/ directly inside). */
  legacy: Array<{ projectId: string; path: string; nestedRepos: number }>;
}

/**
 * Lists the checkpoint repositories, their quarantines and the legacy per-project repositories.
 * A project folder that is a symlink is listed through, so that the delete guards refuse what is
 * behind it (a link in the path) rather than it passing unseen.
 */
export async function listSnapshots(dataDir: string): Promise<SnapshotListing> {
  const listing: SnapshotListing = { repos: [], quarantines: [], legacy: [] };
  for (const project of await readdirOrEmpty(snapshotRoot(dataDir))) {
    if (!PROJECT_ID.test(project.name) || !(project.isDirectory() || project.isSymbolicLink())) continue;
    const projectDir = path.join(snapshotRoot(dataDir), project.name);
    for (const quarantine of await findQuarantines(projectDir)) {
      listing.quarantines.push({
        path: quarantine,
        original: quarantinedName(path.basename(quarantine)) ?? '',
        projectDir,
      });
    }
    const entries = await readdirOrEmpty(projectDir);
    let nested = 0;
    for (const entry of entries) {
      if (!isRepoEntry(entry)) continue;
      listing.repos.push({ projectId: project.name, gitdir: path.join(projectDir, entry.name), name: entry.name });
      nested += 1;
    }
    if (isLegacyRepo(entries)) listing.legacy.push({ projectId: project.name, path: projectDir, nestedRepos: nested });
  }
  return listing;
}

function isRepoEntry(entry: Dirent): boolean {
  return WORKTREE_HASH.test(entry.name) && (entry.isDirectory() || entry.isSymbolicLink());
}

function isLegacyRepo(entries: Dirent[]): boolean {
  const head = entries.find((entry) => entry.name === 'HEAD');
  const objects = entries.find((entry) => entry.name === 'objects');
  return head?.isFile() === true && objects?.isDirectory() === true;
}
