import path from 'node:path';
import * as z from 'zod';
import { errorMessage } from '../../model/errors.js';
import { createHash } from 'node:crypto';
import type { Candidate } from '../../provider-api/candidate.js';
import type { GatherContext, Gathering, Provider } from '../../provider-api/provider.js';
import type { OwnerJudgement, RootStatus } from '../../model/types.js';
import { garbageNote, garbageOf, type RepositoryGarbage } from '../../engines/git-garbage/candidates.js';
import { readShadowConfig } from '../../engines/vscode-storage/git-config.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readRegularFile, readStateFile } from '../../safety/fs/read.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { locate } from '../../safety/owners/locations.js';
import { besideBasis } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { whose } from '../../safety/processes/user-names.js';
import { geminiConfig } from './config.js';
import { geminiGarbageStand, judgeHistory, judgeScratch, type ProjectFacts } from './judge.js';
import { geminiLocations, historyDir, registryFile, tmpDir, toolLabel, type GeminiLocation } from './layout.js';
import { projectSessions, sessionQuarantines, sharedSettings, type SharedSettings } from './owner-retention.js';

/** Gemini CLI and Qwen Code: git's temporary files in their checkpoint shadow repositories; the rest reported. */
export const geminiGather: Pick<Provider, 'gather' | 'claimedAreas' | 'usesHomes'> = {
  usesHomes: (config) => geminiConfig(config).dir === undefined,
  async claimedAreas(ctx) {
    return geminiLocations(ctx).flatMap((location) => [
      { owner: 'gemini', folder: historyDir(location.dir) },
      { owner: 'gemini', folder: tmpDir(location.dir) },
    ]);
  },
  async gather(ctx: GatherContext): Promise<Gathering> {
    const out: Gathering = { roots: [], candidates: [] };
    for (const location of geminiLocations(ctx)) {
      const found = locate(location.dir, location.basis);
      if (found.state === 'absent' || found.state === 'unreadable') continue;
      if (found.state === 'refused') {
        out.roots.push({ provider: 'gemini', root: location.dir, ok: false, error: found.detail });
        continue;
      }
      try {
        const gathered = await gatherLocation(location, found.owner, ctx);
        out.roots.push(gathered.root);
        out.candidates.push(...gathered.candidates);
      } catch (err) {
        out.roots.push({ provider: 'gemini', root: location.dir, ok: false, error: errorMessage(err) });
      }
    }
    return out;
  },
};

/** `projects.json` as Gemini CLI writes it: the project paths, each with its slug. */
const registrySchema = z.looseObject({ projects: z.record(z.string(), z.string()) });

const REGISTRY_MAX_BYTES = 16 * 1024 * 1024;

async function gatherLocation(
  location: GeminiLocation,
  homeOwner: Owner,
  ctx: GatherContext,
): Promise<{ root: RootStatus; candidates: Candidate[] }> {
  const root: RootStatus = { provider: 'gemini', root: location.dir, ok: true };
  const registry = await readRegistry(location, homeOwner);
  if ('problem' in registry) {
    root.ok = false;
    root.error = registry.problem;
  }
  const histories = await folders(historyDir(location.dir));
  const tmps = await folders(tmpDir(location.dir));
  const names = [...new Set([...histories, ...tmps])].sort();
  ctx.measureAhead?.(names.flatMap((name) => folderPaths(location, name, histories, tmps)));
  const candidates: Candidate[] = [];
  let settings: SharedSettings | null = null;
  const shared = async () => {
    settings ??= await sharedSettings(location, homeOwner, ctx);
    return settings;
  };
  for (const name of names) {
    const facts = await projectFacts(location, name, histories.includes(name), tmps.includes(name), registry, ctx);
    const stand = geminiGarbageStand(facts);
    let garbage: RepositoryGarbage | null = null;
    if (facts.history && stand.recognised) {
      garbage = await garbageOf({
        provider: 'gemini',
        gitdir: path.join(facts.history.path, '.git'),
        // The tool runs git with GIT_DIR set to the repository's .git; any git at work anywhere in the folder counts.
        area: facts.history.path,
        root: location.dir,
        whose: `${toolLabel(location.tool)}'s checkpoint shadow repository`,
        homeOwner,
        ...(stand.refusal ? { refusal: stand.refusal } : {}),
      });
      facts.history.garbageBytes = garbage.files.reduce((sum, file) => sum + file.bytes, 0);
    }
    if (facts.history)
      candidates.push({
        provider: 'gemini',
        kind: 'checkpoint-repo',
        path: facts.history.path,
        root: location.dir,
        judgement: withNote(judgeHistory(facts), garbage),
        homeOwner,
        // A pass that unlinks its garbage moves the mtime of objects/pack: no write of the tool's.
        ...(garbage ? { agedByFiles: true } : {}),
      });
    candidates.push(...(garbage?.candidates ?? []));
    if (facts.tmp) {
      const gemini = location.tool === 'gemini';
      const leftovers = gemini ? await sessionQuarantines(facts.tmp.path, location, homeOwner) : [];
      const sessions =
        gemini && !facts.sourceProblem
          ? await projectSessions(location, homeOwner, facts.tmp.path, rootsOf(facts), await shared(), ctx)
          : null;
      // Items of its own inside it: the folder is named in the detail, never claimed.
      const own = [...leftovers, ...(sessions?.candidates ?? [])];
      const pathless = own.length > 0;
      candidates.push(...own, {
        provider: 'gemini',
        kind: 'task-folder',
        path: pathless ? null : facts.tmp.path,
        root: pathless ? null : location.dir,
        judgement: judgeScratch(facts, { words: sessions?.words ?? null, pathless }),
        homeOwner,
        // A pass that removes sessions in it moves the mtime of their folders without any write of the tool's.
        agedByFiles: true,
      });
    }
  }
  ctx.log.debug({ dir: location.dir, projects: names.length }, 'gemini location gathered');
  return { root, candidates };
}

type Registry = { bySlug: Map<string, string[]>; bySha256: Map<string, string> } | { problem: string };

/** `projects.json` (Gemini CLI only; none is no error), never through a link to another user's file (rule 20). */
async function readRegistry(location: GeminiLocation, owner: Owner): Promise<Registry> {
  const file = registryFile(location.dir);
  const bySlug = new Map<string, string[]>();
  const bySha256 = new Map<string, string>();
  const found = locate(file, besideBasis(location.basis, { path: location.dir, owner }), 'file');
  if (found.state === 'absent') return { bySlug, bySha256 };
  if (found.state !== 'found') return { problem: found.detail };
  try {
    const read = await readStateFile(file, REGISTRY_MAX_BYTES);
    if (read === null) return { bySlug, bySha256 };
    if (read.uid !== owner.uid && read.uid !== 0)
      return { problem: `${file} belongs to ${whose(read.uid)}, not to the owner of ${location.dir}: not read` };
    const parsed = registrySchema.safeParse(JSON.parse(read.text));
    if (!parsed.success) return { problem: `${file} is not the registry's shape ({"projects": {path: slug}})` };
    for (const [project, slug] of Object.entries(parsed.data.projects)) {
      bySlug.set(slug, [...(bySlug.get(slug) ?? []), project]);
      // Older versions named the folders by the sha256 of the project's path.
      bySha256.set(sha256hex(project), project);
    }
    return { bySlug, bySha256 };
  } catch (err) {
    return { problem: `${file} cannot be read: ${errorMessage(err)}` };
  }
}

async function folders(dir: string): Promise<string[]> {
  return (await readdirOrEmpty(dir))
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name);
}

function folderPaths(location: GeminiLocation, name: string, histories: string[], tmps: string[]): string[] {
  return [
    ...(histories.includes(name) ? [path.join(historyDir(location.dir), name)] : []),
    ...(tmps.includes(name) ? [path.join(tmpDir(location.dir), name)] : []),
  ];
}

async function projectFacts(
  location: GeminiLocation,
  name: string,
  hasHistory: boolean,
  hasTmp: boolean,
  registry: Registry,
  ctx: GatherContext,
): Promise<ProjectFacts> {
  const history = path.join(historyDir(location.dir), name);
  const tmp = path.join(tmpDir(location.dir), name);
  const sizeOf = async (folder: string): Promise<number | null> => {
    try {
      await ctx.whenMeasured?.([folder]);
      return ctx.measure(folder).bytes;
    } catch {
      return null;
    }
  };
  const facts: ProjectFacts = {
    tool: location.tool,
    name,
    history: hasHistory ? { path: history, bytes: await sizeOf(history), garbageBytes: 0 } : null,
    tmp: hasTmp ? { path: tmp, bytes: await sizeOf(tmp) } : null,
    identity: null,
    gitdirIsFolder: false,
    projectRoot: null,
    registered: 'bySlug' in registry ? (registry.bySlug.get(name) ?? []) : [],
    projectExists: null,
    ...('problem' in registry ? { sourceProblem: registry.problem } : {}),
  };
  if (hasHistory) {
    facts.gitdirIsFolder = (await lstatOrNull(path.join(history, '.git')).catch(() => null))?.isDirectory() === true;
    const gitconfig = path.join(history, '.gitconfig');
    if (await lstatOrNull(gitconfig).catch(() => null)) {
      try {
        facts.identity = await readShadowConfig(gitconfig);
      } catch (err) {
        facts.identity = { problem: errorMessage(err) };
      }
    }
  }
  for (const folder of [...(hasHistory ? [history] : []), ...(hasTmp ? [tmp] : [])]) {
    facts.projectRoot ??= await readProjectRoot(path.join(folder, '.project_root'));
  }
  if ('bySha256' in registry && facts.projectRoot === null) facts.projectRoot = registry.bySha256.get(name) ?? null;
  const project = facts.projectRoot ?? facts.registered[0] ?? null;
  if (project !== null) {
    try {
      facts.projectExists = (await lstatOrNull(project)) ? 'yes' : 'no';
    } catch {
      facts.projectExists = 'unknown';
    }
  }
  return facts;
}

/** `.project_root`: the project's absolute path, as the tool writes it (a small regular file, never through a link). */
async function readProjectRoot(file: string): Promise<string | null> {
  const text = await readRegularFile(file, async (handle, stats) =>
    stats.size > 64 * 1024 ? null : (await handle.readFile()).toString('utf8'),
  );
  const value = text?.replace(/\r?\n$/, '') ?? '';
  return path.isAbsolute(value) ? value : null;
}

function withNote(judgement: OwnerJudgement, garbage: RepositoryGarbage | null): OwnerJudgement {
  const note = garbage ? garbageNote(garbage) : '';
  return note === '' ? judgement : { ...judgement, detail: `${judgement.detail}${note}` };
}

const sha256hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Every root the project's records name: `.project_root`, then each path `projects.json` maps to its folder. */
const rootsOf = (facts: ProjectFacts): string[] =>
  [...new Set([facts.projectRoot, ...facts.registered])].filter(
    (root): root is string => root !== null && path.isAbsolute(root),
  );
