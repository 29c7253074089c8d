import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import type { Anchor, SetContext, StateFolders } from '../../provider-api/provider.js';
import { locate } from '../../safety/owners/locations.js';
import { besideBasis, type LocationBasis } from '../../safety/owners/location-basis.js';
import { ownedBy } from '../../safety/owners/owned-by.js';
import { databaseFiles, readKiloRecords } from './database.js';
import { kiloLocations, type KiloLocation } from './layout.js';

/** opencode's or Kilo's data folders, as this provider finds them (a folder of unknown app counts as Kilo's). */
function dataDirs(ctx: SetContext, app: 'kilo' | 'opencode'): KiloLocation[] {
  return kiloLocations(ctx).filter((location) => (location.app ?? 'kilo') === app);
}

/**
 * The places of Kilo Code and opencode a worktree set may root in: `{opencode-data}` and
 * `{kilo-data}`, their data folders, and `{kilo-projects}`, the repositories of Kilo's project rows.
 */
export const KILO_ANCHORS: readonly Anchor[] = [
  {
    name: 'opencode-data',
    folders: (ctx) =>
      dataDirs(ctx, 'opencode').map((location) => ({ folder: location.dataDir, basis: location.basis })),
  },
  {
    name: 'kilo-data',
    folders: (ctx) => dataDirs(ctx, 'kilo').map((location) => ({ folder: location.dataDir, basis: location.basis })),
  },
  { name: 'kilo-projects', fromState: (ctx) => kiloProjectRepos(ctx) },
];

/**
 * The main repositories of Kilo Code's project rows (`project.worktree`), read-only from every
 * Kilo database the kilo provider would read: where `kilo worktree create` and the Agent Manager
 * make `<repo>/.kilo/worktrees/<name>`. opencode makes none there, so its databases are not read.
 */
async function kiloProjectRepos(ctx: SetContext): Promise<StateFolders> {
  const found: StateFolders = { repos: [], problems: [] };
  const repos = new Map<string, LocationBasis>();
  for (const location of kiloLocations(ctx)) {
    if (location.app === 'opencode') continue;
    // The databases are read as the data folder's owner's (rule 20): never through a link to another user's.
    const data = locate(location.dataDir, location.basis);
    if (data.state === 'refused') {
      found.problems.push({ file: location.dataDir, error: data.detail });
      continue;
    }
    if (data.state !== 'found') continue;
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
    const beside = besideBasis(location.basis, data);
    for (const file of files) {
      const database = locate(file, beside, 'file');
      if (database.state === 'refused') {
        found.problems.push({ file, error: database.detail });
        continue;
      }
      if (database.state !== 'found') continue;
      try {
        for (const owners of readKiloRecords([file]).projects.values())
          for (const repo of owners) {
            const top = path.resolve(repo);
            if (!repos.has(top) && (await ownedBy(top, data.owner.uid))) repos.set(top, location.basis);
          }
      } catch (err) {
        found.problems.push({ file, error: errorMessage(err) });
      }
    }
  }
  found.repos = [...repos.keys()].sort().map((repo) => ({ path: repo, basis: repos.get(repo) as LocationBasis }));
  return found;
}
