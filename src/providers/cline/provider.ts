import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { clineConfig } from './config.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { RootStatus } from '../../model/types.js';
import { defaultStateDatabase } from '../../engines/vscode-storage/editors.js';
import { allAtLeast, installedVersions } from '../../engines/vscode-storage/extensions.js';
import { quarantineCandidate } from '../../engines/vscode-storage/quarantine.js';
import { refusedRoots } from '../../engines/vscode-storage/refused.js';
import { settleHistory, type Settlement } from '../../engines/vscode-storage/settle.js';
import { readShadowRepos, type ShadowRepoFacts } from '../../engines/vscode-storage/shadow-repo.js';
import { readClineHistory, type ClineHistory } from './history.js';
import { clineGarbageStand, judgeClineRepo, judgeOrphanFolder, type ClinePlace } from './judge.js';
import { garbageNote, garbageOf } from '../../engines/git-garbage/candidates.js';
import { CLINE_EXTENSION, clineLocations, type ClineLocation } from './layout.js';
import { listClineStorage, type ClineListing } from './listing.js';
import { hubCandidates } from './hub.js';

/**
 * Cline (VS Code extension and standalone host): checkpoint ("shadow git") repositories; and the
 * Cline hub's SQLite logs.
 */
export const clineGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => {
    const section = clineConfig(config);
    return section.userDataDir === undefined && section.dataDir === undefined;
  },
  async claimedAreas(ctx) {
    const locations = await clineLocations(ctx);
    return locations.flatMap((location) => location.storages.map((folder) => ({ owner: 'cline', folder })));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const locations = await clineLocations(ctx);
    // Each history is read (and, when it was just written, read again a few seconds later) at once.
    const places = await Promise.all(locations.map((location) => readPlace(location)));
    const roots: RootStatus[] = [];
    const candidates: Candidate[] = [];
    for (const [index, location] of locations.entries()) {
      roots.push(...refusedRoots('cline', location.refused, roots));
      const gathered = await gatherLocation(location, places[index] as ClinePlace, ctx);
      roots.push(...gathered.roots);
      candidates.push(...gathered.candidates.map((candidate) => ({ ...candidate, homeOwner: location.homeOwner })));
    }
    candidates.push(...(await hubCandidates(ctx)));
    return { roots, candidates };
  },
};

async function readPlace(location: ClineLocation): Promise<ClinePlace> {
  const settled: Settlement = { state: 'settled' };
  if (location.editor && !location.stateDatabases.includes(defaultStateDatabase(location.editor))) {
    const where = defaultStateDatabase(location.editor);
    return {
      sourceProblem: location.editor.remote
        ? `${where} does not exist: a remote host's global state is kept by the client, so the task history older than Cline 3.28 cannot be read here`
        : `${where} does not exist, so Cline's global state cannot be read`,
      history: null,
      settlement: settled,
      legacyFormat: null,
    };
  }
  let history: ClineHistory;
  let settlement: Settlement;
  try {
    ({ history, settlement } = await settleHistory(() => readClineHistory(location)));
  } catch (err) {
    return { sourceProblem: errorMessage(err), history: null, settlement: settled, legacyFormat: null };
  }
  return { history, settlement, legacyFormat: await legacyFormat(location, history) };
}

/** Why the Cline using this place no longer reads its checkpoint repositories, or null. */
async function legacyFormat(location: ClineLocation, history: ClineHistory): Promise<string | null> {
  if (location.editor) {
    const versions = await installedVersions(location.editor, CLINE_EXTENSION);
    if (!allAtLeast(versions, 4)) return null;
    return `the installed Cline ${versions?.join(', ')} (4.0 or later) no longer reads checkpoints/: delete the task in Cline's history (Cline 4 lists legacy tasks), and a later pass removes the repository`;
  }
  const database = history.sessionDatabases[0];
  if (database === undefined) return null;
  return `a Cline 4 uses this folder (${database}) and no longer reads checkpoints/, and its CLI neither lists nor deletes legacy tasks: delete the task in Cline 4 for VS Code (which lists them) or with a Cline 3 client, and a later pass removes the repository`;
}

async function gatherLocation(
  location: ClineLocation,
  place: ClinePlace,
  ctx: GatherContext,
): Promise<{ roots: RootStatus[]; candidates: Candidate[] }> {
  const roots: RootStatus[] = [];
  const candidates: Candidate[] = [];
  for (const storage of location.storages) {
    const root: RootStatus = { provider: 'cline', root: storage, ok: true };
    roots.push(root);
    let listing: ClineListing;
    try {
      listing = await listClineStorage(storage);
    } catch (err) {
      root.ok = false;
      root.error = `${storage} cannot be listed: ${errorMessage(err)}`;
      continue;
    }
    if (place.sourceProblem) {
      root.ok = false;
      root.error = place.sourceProblem;
    }
    // Quarantines first: they were proven dead when they were made, whatever the history says now.
    for (const quarantine of listing.quarantines)
      candidates.push(quarantineCandidate('cline', quarantine.path, storage));

    // Walked beside the git runs that read them, for the plan's inspection.
    ctx.measureAhead?.(listing.repos.map((entry) => entry.folder));
    const facts = await readShadowRepos(listing.repos.map((entry) => entry.folder));
    const inside = new Set<string>();
    for (const [index, entry] of listing.repos.entries()) {
      const repo = facts[index] as ShadowRepoFacts;
      const judgement = judgeClineRepo(entry, repo, place);
      // A repository to be deleted takes its garbage with it; any other of Cline's keeps its own, reported apart.
      const stand = clineGarbageStand(entry, repo, place);
      const garbage =
        judgement.decision === 'delete' || !stand.recognised
          ? null
          : await garbageOf({
              provider: 'cline',
              gitdir: repo.gitdir,
              // Cline runs its git (through simple-git) from the repository's folder, beside its .git.
              area: entry.folder,
              root: storage,
              whose: "Cline's checkpoint repository",
              homeOwner: location.homeOwner,
              ...(stand.refusal ? { refusal: stand.refusal } : {}),
            });
      const note = garbage ? garbageNote(garbage) : '';
      candidates.push({
        provider: 'cline',
        kind: 'checkpoint-repo',
        path: entry.folder,
        root: storage,
        judgement: note === '' ? judgement : { ...judgement, detail: `${judgement.detail}${note}` },
      });
      candidates.push(...(garbage?.candidates ?? []));
      inside.add(path.dirname(entry.folder));
    }
    for (const quarantine of listing.quarantines) inside.add(quarantine.parent);
    for (const folder of listing.taskFolders) {
      // One path, one verdict: a folder holding a candidate is spoken of by that candidate.
      if (inside.has(folder.path)) continue;
      const judgement = judgeOrphanFolder(folder.id, folder.path, place);
      if (judgement)
        candidates.push({ provider: 'cline', kind: 'task-folder', path: folder.path, root: storage, judgement });
    }
    ctx.log.debug(
      { storage, repos: listing.repos.length, sources: place.history?.sources ?? [] },
      'cline storage gathered',
    );
  }
  return { roots, candidates };
}
