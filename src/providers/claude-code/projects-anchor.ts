import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import { readStateFile } from '../../safety/fs/read.js';
import { locate } from '../../safety/owners/locations.js';
import { readWorktreeLink } from '../../engines/git-worktree/link.js';
import type { Anchor, SetContext, StateFolders } from '../../provider-api/provider.js';
import { ownedBy } from '../../safety/owners/owned-by.js';
import { isPlainObject } from '../../util/plain-object.js';

/** `.claude.json` holds settings, caches and history too; tens of megabytes are seen. */
const MAX_STATE_BYTES = 256 * 1024 * 1024;
/** Claude Code rewrites `.claude.json` often; a read that catches it half-written is tried once more. */
const RETRY_AFTER_MS = 250;

/**
 * `{claude-projects}`: the repositories of Claude Code's projects, where `claude --worktree` and
 * subagents make `<repo>/.claude/worktrees/<name>`.
 */
export const CLAUDE_ANCHORS: readonly Anchor[] = [{ name: 'claude-projects', fromState: (ctx) => claudeProjects(ctx) }];

/** The repositories every home's `.claude.json` names; one two homes name is the first home's. */
async function claudeProjects(ctx: SetContext): Promise<StateFolders> {
  const all: StateFolders = { repos: [], problems: [], warnings: [] };
  const seen = new Set<string>();
  for (const home of ctx.homes) {
    const found = await claudeProjectRepos(home, ctx.env);
    // A repository two homes' states name is judged as the first home's (its own check refuses another's).
    for (const repo of found.repos) {
      if (seen.has(repo.path)) continue;
      seen.add(repo.path);
      all.repos.push(repo);
    }
    all.problems.push(...found.problems);
    all.warnings?.push(...(found.warnings ?? []));
  }
  return all;
}

/**
 * The repositories Claude Code has worked in, from the `projects` entries of its `.claude.json`:
 * `<home>/.claude.json`, and for the current user's own home `$CLAUDE_CONFIG_DIR/.claude.json` as
 * well. A project may be a folder inside a repository or one of its linked worktrees; Claude Code
 * makes `.claude/worktrees` at the repository's top, so that is what is answered.
 */
async function claudeProjectRepos(home: string, env: NodeJS.ProcessEnv): Promise<StateFolders> {
  const own = Boolean(env.HOME) && path.resolve(env.HOME as string) === path.resolve(home);
  const files = [path.join(home, '.claude.json')];
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (own && configDir && path.isAbsolute(configDir)) files.unshift(path.join(configDir, '.claude.json'));
  const found: StateFolders = { repos: [], problems: [] };
  const repos = new Set<string>();
  const basis = { home: path.resolve(home) };
  let stateThere = false;
  for (const file of [...new Set(files)]) {
    // The state is the home's owner's own (rule 20): never a link to another user's file.
    const located = locate(file, basis, 'file');
    if (located.state === 'absent') continue;
    stateThere = true;
    if (located.state === 'refused') {
      found.problems.push({ file, error: located.detail });
      continue;
    }
    let projects: string[] | null;
    try {
      projects = await readProjects(file);
    } catch (err) {
      found.problems.push({ file, error: `${file} cannot be read: ${errorMessage(err)}` });
      continue;
    }
    if (!projects || located.state !== 'found') continue;
    for (const project of projects)
      for (const repo of await repositoriesOf(project)) if (await ownedBy(repo, located.owner.uid)) repos.add(repo);
  }
  found.repos = [...repos].sort().map((repo) => ({ path: repo, basis }));
  if (!stateThere) {
    const data = [path.join(home, '.claude'), path.join(home, '.claude-worktrees')];
    if (own && configDir && path.isAbsolute(configDir)) data.unshift(configDir);
    const there = data.find((folder) => locate(folder, basis).state === 'found');
    if (there) found.warnings = [{ file: files[0] as string, warning: withoutProjects(there, [...new Set(files)]) }];
  }
  return found;
}

/**
 * Claude Code's data is in a home but its list of projects is not: the worktrees it makes in its
 * projects' repositories cannot be found, and a pass that says only `would reclaim 0 B` would hide it.
 */
function withoutProjects(data: string, files: string[]): string {
  const missing =
    files.length === 1
      ? `${files[0]} (its list of projects) does not exist`
      : `neither ${files.join(' nor ')} (its list of projects) exists`;
  return `Claude Code's data is in ${data}, but ${missing}: the worktrees it makes in its projects' repositories (.claude/worktrees) were not looked at`;
}

async function readProjects(file: string): Promise<string[] | null> {
  for (let attempt = 0; ; attempt += 1) {
    const read = await readStateFile(file, MAX_STATE_BYTES);
    if (!read) return null;
    try {
      return projectKeys(JSON.parse(read.text) as unknown, file);
    } catch (err) {
      if (attempt > 0) throw err;
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
    }
  }
}

function projectKeys(value: unknown, file: string): string[] {
  if (!isPlainObject(value)) throw new Error(`${file} is not a JSON object`);
  const { projects } = value;
  if (projects === undefined) return [];
  if (!isPlainObject(projects)) throw new Error(`${file}: projects is not an object of project folders`);
  return Object.keys(projects).filter((key) => path.isAbsolute(key));
}

/**
 * The top of the repository a project folder is in (the nearest folder upwards with a `.git`), and
 * when that top is a linked worktree, its main worktree too. Only the project's own ancestors are
 * looked at: no search of the disk.
 */
async function repositoriesOf(project: string): Promise<string[]> {
  let folder = path.resolve(project);
  for (;;) {
    const marker = await lstatOrNull(path.join(folder, '.git')).catch(() => null);
    if (marker) {
      if (!marker.isFile()) return [folder];
      const link = readWorktreeLink(folder);
      return link.ok ? [folder, link.link.ownerRepo] : [folder];
    }
    const parent = path.dirname(folder);
    if (parent === folder) return [];
    folder = parent;
  }
}
