import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import type { GatherContext } from '../../core/types.js';
import { lstatOrNull } from '../../safety/fs.js';
import { databaseFiles, readKiloRecords } from '../kilo/database.js';
import { kiloLocations } from '../kilo/layout.js';
import { ownedBy, type StateFolders } from './state-folders.js';

/**
 * The main repositories of Kilo Code's project rows (`project.worktree`), read-only from every
 * Kilo database the kilo provider would read: where `kilo worktree create` and the Agent Manager
 * make `<repo>/.kilo/worktrees/<name>`. opencode makes none there, so its databases are not read.
 */
export async function kiloProjectRepos(ctx: Pick<GatherContext, 'config' | 'homes' | 'env'>): Promise<StateFolders> {
  const found: StateFolders = { repos: [], problems: [] };
  const repos = new Set<string>();
  for (const location of kiloLocations(ctx)) {
    if (location.app === 'opencode') continue;
    let files: string[];
    try {
      files = await databaseFiles(location.dataDir, location.extraDatabase);
    } catch (err) {
      found.problems.push({
        file: location.dataDir,
        error: `${location.dataDir} cannot be listed: ${errorMessage(err)}`,
      });
      continue;
    }
    for (const file of files) {
      try {
        const uid = (await lstatOrNull(file))?.uid;
        if (uid === undefined) continue;
        for (const owners of readKiloRecords([file]).projects.values())
          for (const repo of owners) if (await ownedBy(repo, uid)) repos.add(path.resolve(repo));
      } catch (err) {
        found.problems.push({ file, error: errorMessage(err) });
      }
    }
  }
  found.repos = [...repos].sort();
  return found;
}
