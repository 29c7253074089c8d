import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { watchfireConfig } from './config.js';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { OwnerJudgement } from '../../model/types.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { findQuarantines } from '../../safety/removal/quarantine.js';
import { daemonLiveness } from './daemon.js';
import { examineHome, homeEntries, homeFolders } from './homes.js';
import { judgeHome, judgeQuarantine, judgeUnreadableSource, type WatchfireWorld } from './judge.js';
import {
  AGENTS_FILE,
  DAEMON_FILE,
  DAEMON_LOCK,
  LOGS_DIR,
  PROJECTS_FILE,
  watchfireLocations,
  watchfireRoots,
} from './layout.js';
import { sessionLogsByProject } from './session-logs.js';
import { readAgents, readProjects } from './state.js';

/** Watchfire's per-session agent homes under `<home>/.watchfire/*-home/`. */
export const watchfireGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => watchfireConfig(config).root === undefined,
  async claimedAreas(ctx) {
    return watchfireRoots(ctx).map((folder) => ({ owner: 'watchfire', folder }));
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const gathering: Gathering = { roots: [], candidates: [] };
    const located = watchfireLocations(ctx).map(({ root, basis }) => ({ root, found: locate(root, basis) }));
    const roots = located.flatMap(({ root, found }) => (found.state === 'found' ? [root] : []));
    // One walk ahead for every root's homes: a walker started per root costs a process each.
    if (ctx.measureAhead) ctx.measureAhead(await homesToWalk(roots));
    for (const { root, found } of located) {
      if (found.state === 'absent') {
        ctx.log.debug({ root }, 'no Watchfire root here');
        continue;
      }
      if (found.state !== 'found') {
        // A link to another user's files (rule 20), or a root that cannot be looked at.
        ctx.log.warn({ root, error: found.detail }, 'Watchfire root not read');
        gathering.roots.push({ provider: 'watchfire', root, ok: false, error: found.detail });
        continue;
      }
      const gathered = await gatherRoot(root, found.owner, ctx).catch((err: unknown): Gathering => {
        // One unreadable root (EACCES on another user's home, say) must not hide the others.
        ctx.log.warn({ root, err }, 'Watchfire root could not be read');
        return {
          roots: [{ provider: 'watchfire', root, ok: false, error: `${root}: ${errorMessage(err)}` }],
          candidates: [],
        };
      });
      gathering.roots.push(...gathered.roots);
      gathering.candidates.push(...gathered.candidates);
    }
    return gathering;
  },
};

async function gatherRoot(root: string, homeOwner: Owner, ctx: GatherContext): Promise<Gathering> {
  const candidate = (kind: Candidate['kind'], target: string, judgement: OwnerJudgement): Candidate => ({
    provider: 'watchfire',
    kind,
    path: target,
    root,
    judgement,
    homeOwner,
  });
  const folders = await homeFolders(root);
  const candidates: Candidate[] = [];

  // Quarantines first, whatever the registry says: they were proven dead when they were made.
  for (const folder of folders) {
    for (const quarantine of await findQuarantines(folder))
      candidates.push(candidate('quarantine', quarantine, judgeQuarantine(quarantine)));
  }

  const homes = (await Promise.all(folders.map((folder) => homeEntries(folder)))).flat();
  const failClosed = (error: string): Gathering => {
    for (const home of homes) candidates.push(candidate('session-home', home.path, judgeUnreadableSource(home, error)));
    ctx.log.warn({ root, error }, 'Watchfire registry unreadable; its homes are refused');
    return { roots: [{ provider: 'watchfire', root, ok: false, error }], candidates };
  };
  const projects = await readProjects(path.join(root, PROJECTS_FILE));
  if (!projects.ok) return failClosed(projects.error);
  const agents = await readAgents(path.join(root, AGENTS_FILE));
  if (!agents.ok) return failClosed(agents.error);

  const world: WatchfireWorld = {
    projects: projects.projects,
    agents: agents.agents,
    daemon: await daemonLiveness(path.join(root, DAEMON_LOCK), path.join(root, DAEMON_FILE)),
    sessionLogs: await sessionLogsByProject(
      path.join(root, LOGS_DIR),
      projects.projects.map((project) => project.projectId),
    ),
  };
  ctx.log.debug(
    { root, daemon: world.daemon, projects: world.projects.length, agents: world.agents?.length ?? null },
    'Watchfire root read',
  );
  const now = ctx.now.getTime();
  ctx.measureAhead?.(homes.flatMap((home) => (home.type === 'directory' ? [home.path] : [])));
  for (const home of homes) {
    const evidence = await examineHome(home, ctx.measure, ctx.whenMeasured);
    candidates.push(candidate('session-home', home.path, judgeHome(evidence, world, now)));
  }
  return { roots: [{ provider: 'watchfire', root, ok: true }], candidates };
}

/** The session homes that are folders, root by root, in the order `gatherRoot` examines them. */
async function homesToWalk(roots: readonly string[]): Promise<string[]> {
  const homes: string[] = [];
  for (const root of roots) {
    try {
      for (const folder of await homeFolders(root))
        for (const home of await homeEntries(folder)) if (home.type === 'directory') homes.push(home.path);
    } catch {
      // gatherRoot reads the root again and says what is wrong with it.
    }
  }
  return homes;
}
