import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { rooConfig } from './config.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { OwnerJudgement, RootStatus } from '../../model/types.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { defaultStateDatabase } from '../../engines/vscode-storage/editors.js';
import { allAtLeast, installedVersions } from '../../engines/vscode-storage/extensions.js';
import { quarantineCandidate } from '../../engines/vscode-storage/quarantine.js';
import { refusedRoots } from '../../engines/vscode-storage/refused.js';
import { readSetting } from '../../engines/vscode-storage/settings.js';
import { settleHistory, type Settlement } from '../../engines/vscode-storage/settle.js';
import { readShadowRepos, type ShadowRepoFacts } from '../../engines/vscode-storage/shadow-repo.js';
import { readBaseTasks, readRooHistory, unusableBase } from './history.js';
import {
  judgeRooOrphan,
  judgeRooRepo,
  repoTasks,
  rooGarbageStand,
  type RooPlace,
  type WorkspaceBase,
} from './judge.js';
import { garbageNote, garbageOf } from '../../engines/git-garbage/candidates.js';
import { rooLocations, type RooLocation } from './layout.js';
import { listRooStorage, taskFolders, type RooListing, type RooRepoEntry } from './listing.js';

/** Roo Code and the Kilo Code extension of 5.x and before: per-task checkpoint repositories. */
export const rooGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => rooConfig(config).userDataDir === undefined,
  async claimedAreas(ctx) {
    const locations = await rooLocations(ctx);
    return locations.flatMap((location) => location.storages.map((folder) => ({ owner: 'roo', folder })));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const locations = await rooLocations(ctx);
    const places = await Promise.all(locations.map((location) => readPlace(location)));
    const roots: RootStatus[] = [];
    const candidates: Candidate[] = [];
    // A workspace's own storage path is read once per pass, however many repositories name it.
    const workspaceBases = new Map<string, Promise<Map<string, string>>>();
    for (const [index, location] of locations.entries()) {
      roots.push(...refusedRoots('roo', location.refused, roots));
      const gathered = await gatherLocation(location, places[index] as RooPlace, workspaceBases, ctx);
      roots.push(...gathered.roots);
      candidates.push(...gathered.candidates.map((candidate) => ({ ...candidate, homeOwner: location.homeOwner })));
    }
    return { roots, candidates };
  },
};

async function readPlace(location: RooLocation): Promise<RooPlace> {
  const { extension, editor } = location;
  const settled: Settlement = { state: 'settled' };
  const base = { extension, history: null, settlement: settled, legacyFormat: null };
  if (!location.stateDatabases.includes(defaultStateDatabase(editor))) {
    const where = defaultStateDatabase(editor);
    return {
      ...base,
      sourceProblem: editor.remote
        ? `${where} does not exist: a remote host's global state is kept by the client, and ${extension.label} keeps its task history there`
        : `${where} does not exist, so ${extension.label}'s task history cannot be read`,
    };
  }
  try {
    const { history, settlement } = await settleHistory(() => readRooHistory(location));
    let legacyFormat: string | null = null;
    if (extension.legacyFromMajor !== null) {
      const versions = await installedVersions(editor, extension.id);
      if (allAtLeast(versions, extension.legacyFromMajor)) {
        legacyFormat = `the installed ${extension.label} ${versions?.join(', ')} (${extension.legacyFromMajor}.0 or later, a new extension under the same id) no longer reads these tasks, and ${extension.howToDrop}`;
      }
    }
    return { ...base, history, settlement, legacyFormat };
  } catch (err) {
    return { ...base, sourceProblem: errorMessage(err) };
  }
}

async function gatherLocation(
  location: RooLocation,
  place: RooPlace,
  workspaceBases: Map<string, Promise<Map<string, string>>>,
  ctx: GatherContext,
): Promise<{ roots: RootStatus[]; candidates: Candidate[] }> {
  const roots: RootStatus[] = [];
  const candidates: Candidate[] = [];
  const problem = place.sourceProblem ?? place.history?.customProblem;
  const holders = new Set<string>();
  for (const storage of location.storages) {
    const root: RootStatus = { provider: 'roo', root: storage, ok: problem === undefined };
    if (problem) root.error = problem;
    roots.push(root);
    let listing: RooListing;
    try {
      listing = await listRooStorage(storage);
    } catch (err) {
      root.ok = false;
      root.error = `${storage} cannot be listed: ${errorMessage(err)}`;
      continue;
    }
    // Quarantines first: they were proven dead when they were made, whatever the history says now.
    for (const quarantine of listing.quarantines) {
      candidates.push(quarantineCandidate('roo', quarantine.path, storage));
      holders.add(quarantine.parent);
    }
    // Walked beside the git runs that read them, for the plan's inspection.
    ctx.measureAhead?.(listing.repos.map((entry) => entry.folder));
    const facts = await readShadowRepos(listing.repos.map((entry) => entry.folder));
    for (const [index, entry] of listing.repos.entries()) {
      const repo = facts[index] as ShadowRepoFacts;
      const workspace =
        entry.layout === 'task'
          ? await workspaceBase(location, entry, repo, place, workspaceBases)
          : { state: 'none' as const };
      const judgement = judgeRooRepo(entry, repo, place, workspace);
      // A repository to be deleted takes its garbage with it; any other of the extension's keeps its own, reported apart.
      const stand = rooGarbageStand(repo, place);
      const garbage =
        judgement.decision === 'delete' || !stand.recognised
          ? null
          : await garbageOf({
              provider: 'roo',
              gitdir: repo.gitdir,
              // The extension runs its git (through simple-git) from the repository's folder, beside its .git.
              area: entry.folder,
              root: storage,
              whose: `${location.extension.label}'s checkpoint repository`,
              homeOwner: location.homeOwner,
              ...(stand.refusal ? { refusal: stand.refusal } : {}),
            });
      const noted = await withFolderNote(entry, judgement);
      const note = garbage ? garbageNote(garbage) : '';
      candidates.push({
        provider: 'roo',
        kind: 'checkpoint-repo',
        path: entry.folder,
        root: storage,
        judgement: note === '' ? noted : { ...noted, detail: `${noted.detail}${note}` },
      });
      candidates.push(...(garbage?.candidates ?? []));
      if (entry.layout === 'task') holders.add(path.dirname(entry.folder));
    }
  }
  if (place.history && !problem) {
    for (const base of place.history.bases) {
      for (const folder of await taskFolders(base).catch(() => [])) {
        // One path, one verdict: a folder holding a candidate is spoken of by that candidate.
        if (holders.has(folder.path)) continue;
        const judgement = judgeRooOrphan(folder.id, folder.path, folder.entries, place);
        if (judgement)
          candidates.push({ provider: 'roo', kind: 'task-folder', path: folder.path, root: base, judgement });
      }
    }
  }
  ctx.log.debug(
    { product: location.editor.product, extension: location.extension.key, sources: place.history?.sources ?? [] },
    'roo location gathered',
  );
  return { roots, candidates };
}

/** A dead repository whose task folder holds more than the repository: that rest is reported after it goes. */
async function withFolderNote(entry: RooRepoEntry, judgement: OwnerJudgement): Promise<OwnerJudgement> {
  if (judgement.decision !== 'delete' || entry.layout !== 'task') return judgement;
  const folder = path.dirname(entry.folder);
  const rest = (await readdirOrEmpty(folder).catch(() => []))
    .map((inner) => inner.name)
    .filter((name) => name !== 'checkpoints');
  if (rest.length === 0) return judgement;
  return {
    ...judgement,
    detail: `${judgement.detail}. The rest of ${folder} (${rest.slice(0, 3).join(', ')}${rest.length > 3 ? ', …' : ''}) is conversation data: it is reported as an orphan task folder, not deleted`,
  };
}

/**
 * The repository's workspace's own `.vscode/settings.json`: a custom storage path set there is seen
 * by no user-level read, and the task's history would be kept in it. Only a way to find the task
 * alive: a workspace that is gone, or says nothing, proves nothing either way.
 */
async function workspaceBase(
  location: RooLocation,
  entry: RooRepoEntry,
  repo: ShadowRepoFacts,
  place: RooPlace,
  cache: Map<string, Promise<Map<string, string>>>,
): Promise<WorkspaceBase> {
  const worktree = repo.config?.worktree;
  if (!worktree || !path.isAbsolute(worktree) || !place.history) return { state: 'none' };
  const file = path.join(worktree, '.vscode', 'settings.json');
  const section = location.extension.settingsSection;
  try {
    if (!(await lstatOrNull(file).catch(() => null))) return { state: 'none' };
    const setting = await readSetting(file, section, 'customStoragePath');
    if (setting.state === 'absent' || setting.value === '') return { state: 'none' };
    const problem = await unusableBase(setting.value, location.basis);
    if (problem) {
      return {
        state: 'problem',
        reason: 'custom-path-unmounted',
        detail: `its workspace sets ${section}.customStoragePath in ${file} to ${problem}: the task's history kept there cannot be seen`,
      };
    }
    const base = path.resolve(setting.value as string);
    if (place.history.bases.includes(base)) return { state: 'silent', base };
    let tasks = cache.get(base);
    if (!tasks) {
      tasks = readBaseTasks(base);
      cache.set(base, tasks);
    }
    const named = await tasks;
    for (const task of repoTasks(entry, repo).tasks) {
      const source = named.get(task);
      if (source) return { state: 'names-task', task, source };
    }
    return { state: 'silent', base };
  } catch (err) {
    return {
      state: 'problem',
      reason: 'evidence-unreadable',
      detail: `its workspace's ${file} cannot be read, so a custom storage path set there is unknown: ${errorMessage(err)}`,
    };
  }
}
