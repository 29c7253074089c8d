import path from 'node:path';
import { pathsOverlap } from '../../config/glob-overlap.js';
import { expandUnder } from '../../config/homes.js';
import { durationMs } from '../../util/duration.js';
import type { ClaimContext } from '../../provider-api/provider.js';
import type { RootStatus } from '../../model/types.js';
import { isFolderOrLinkToOne, lstatOrNull } from '../../safety/fs/stat.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { locate } from '../../safety/owners/locations.js';
import { PathIndex } from '../../safety/path-index.js';
import { basisOf } from '../../safety/owners/location-basis.js';
import type { Owner } from '../../safety/owners/owner.js';
import { StateAnchors, staticBases, type RootBase } from './anchors.js';
import { claimedFolders } from './overlap.js';
import { anchorNames, parseRoot } from './roots.js';
import { worktreesConfig, type WorktreeSetConfig } from './config.js';

export interface SetRoot {
  set: string;
  idleAfter: string;
  idleAfterMs: number;
  /** A folder whose direct children are worktrees. */
  root: string;
  /** Named by a tool's state (`{claude-projects}`, `{kilo-projects}`) rather than by the config. */
  fromState: boolean;
  /** The owner of the home the root belongs to (or of the root outside every home), as the resolver answered it. */
  owner: Owner;
}

export interface SetRoots {
  roots: SetRoot[];
  /**
   * Tool state that could not be read, so some roots could not be known (`ok: false`), and tool
   * state missing beside the tool's data, so its roots were not looked at (`ok: true` with a warning).
   */
  problems: RootStatus[];
}

/**
 * Every root of every enabled set, after its anchor (`~/` once per home, a tool's folder or its
 * state) and glob expansion, that is a folder. A root that does not exist is a tool not used here:
 * no entry, no error. A root that is itself a repository or worktree is no folder of worktrees, and
 * one that lies in or holds another provider's folder is that provider's to judge (rule 16).
 */
export async function setRoots(ctx: ClaimContext): Promise<SetRoots> {
  const found: SetRoot[] = [];
  const problems = new Map<string, RootStatus>();
  const seen = new Set<string>();
  const state = new StateAnchors(ctx);
  const claimed = claimedFolders(ctx);
  const claimedIndex = new PathIndex<true>();
  for (const folder of claimed) claimedIndex.add(folder.folder, true);
  // Every root is looked up at once (most name nothing here: one readdir or lstat each, and each
  // a trip through the threadpool), then taken in the config's order, which decides what is kept.
  const lookedUp = await Promise.all(
    worktreesConfig(ctx.config)
      .sets.filter((set) => set.enabled)
      .flatMap((set) => set.roots.map((text) => lookUpRoot(set, text, state, ctx))),
  );
  for (const { set, fromState, problems: notRead, warnings, folders } of lookedUp) {
    for (const problem of notRead)
      problems.set(problem.file, { provider: 'worktrees', root: problem.file, ok: false, error: problem.error });
    for (const { file, warning } of warnings)
      if (!problems.has(file)) problems.set(file, { provider: 'worktrees', root: file, ok: true, warning });
    for (const { root, owner: homeOwner } of folders) {
      const key = `${set.name}\0${root}`;
      if (seen.has(key)) continue;
      seen.add(key);
      // The index only rules out most roots quickly; the first claimed folder is found in order.
      const owner = claimedIndex.overlaps(root)
        ? claimed.find((folder) => pathsOverlap(root, folder.folder))
        : undefined;
      if (owner) {
        ctx.log.debug({ set: set.name, root, claimedBy: owner.folder }, 'set root left to its own provider');
        continue;
      }
      found.push({
        set: set.name,
        idleAfter: set.idleAfter,
        idleAfterMs: durationMs(set.idleAfter),
        root,
        fromState,
        owner: homeOwner,
      });
    }
  }
  return { roots: withoutNestedStateRoots(found, ctx), problems: [...problems.values()] };
}

type EnabledSet = WorktreeSetConfig;

interface RootLookup {
  set: EnabledSet;
  fromState: boolean;
  /**
   * State files that could not be read, so this root's folders could not all be known, and the
   * fixed parts and folders not followed because a link on the way leads to another user's files.
   */
  problems: { file: string; error: string }[];
  /** State missing beside its tool's data, so the folders it would name were not looked at. */
  warnings: { file: string; warning: string }[];
  /** The folders of worktrees the root names, in order, each with its owner. */
  folders: Array<{ root: string; owner: Owner }>;
}

/**
 * One root of a set: its anchor and glob expanded, and which of the folders found hold worktrees.
 * Its fixed part (the folders before the first pattern), then every folder it expands to, go
 * through the resolver of locations (rule 20): none is read through a link to another user's files.
 */
async function lookUpRoot(set: EnabledSet, text: string, state: StateAnchors, ctx: ClaimContext): Promise<RootLookup> {
  const start = parseRoot(text, anchorNames(ctx.registry));
  if (start.kind === 'invalid') return { set, fromState: false, problems: [], warnings: [], folders: [] };
  let bases: RootBase[] | null = staticBases(start, ctx);
  // A root a user's state names is taken as it is on disk: no link of theirs is followed.
  const fromState = bases === null;
  const problems: RootLookup['problems'] = [];
  const warnings: RootLookup['warnings'] = [];
  if (bases === null && start.kind === 'anchor') {
    const read = await state.bases(start);
    problems.push(...read.problems);
    warnings.push(...read.warnings);
    bases = read.bases;
  }
  const folders: RootLookup['folders'] = [];
  for (const { base, rest, basis } of bases ?? []) {
    const whose = (folder: string) => basis ?? basisOf(folder, ctx.homes);
    const fixed = path.join(base, fixedPart(rest));
    const located = locate(fixed, whose(fixed));
    if (located.state === 'refused') problems.push({ file: fixed, error: located.detail });
    if (located.state !== 'found') continue;
    for (const root of await expandUnder(base, rest)) {
      const each = root === fixed ? located : locate(root, whose(root));
      if (each.state === 'refused') problems.push({ file: root, error: each.detail });
      else if (each.state === 'found' && (await isFolderOfWorktrees(root, !fromState)))
        folders.push({ root, owner: each.owner });
    }
  }
  return { set, fromState, problems, warnings, folders };
}

/** The components of a root's glob before its first pattern: the fixed part below its base. */
function fixedPart(rest: string): string {
  const parts = rest.split('/');
  const first = parts.findIndex((part) => /[*?[]/.test(part));
  return (first === -1 ? parts : parts.slice(0, first)).join(path.sep);
}

/**
 * A root read from a tool's state that is, lies in or holds another set's root is dropped: Claude
 * Code records the worktrees of Conductor, vibe-kanban or Codex it worked in as its projects, and
 * what it made inside them is judged with the tree that holds it, by that tree's set.
 */
function withoutNestedStateRoots(found: SetRoot[], ctx: ClaimContext): SetRoot[] {
  const kept: SetRoot[] = [];
  for (const [index, root] of found.entries()) {
    const other = found.find(
      (candidate, at) =>
        candidate.set !== root.set &&
        pathsOverlap(root.root, candidate.root) &&
        root.fromState &&
        (!candidate.fromState || at < index),
    );
    if (other) {
      ctx.log.debug({ set: root.set, root: root.root, coveredBy: other.root }, 'set root covered by another set');
      continue;
    }
    kept.push(root);
  }
  return kept;
}

async function isFolderOfWorktrees(root: string, followLink: boolean): Promise<boolean> {
  if (!(await isFolder(root, followLink))) return false;
  // A worktree's own subfolders (its submodules, say) are never a set's roots.
  return !(await lstatOrNull(path.join(root, '.git')).catch(() => null));
}

async function isFolder(root: string, followLink: boolean): Promise<boolean> {
  // A configured root may be a link the administrator made (a tool's folder on another disk).
  if (followLink) return isFolderOrLinkToOne(root);
  return (await lstatOrNull(root).catch(() => null))?.isDirectory() === true;
}

/**
 * The direct children of a root that are linked worktrees: real folders with a `.git` file. Names
 * another provider claims are left out (the Agent Manager's `.kilo-delete-<uuid>` folders are
 * renamed worktrees on their way out, the kilo provider's to finish).
 */
export async function worktreesIn(root: string, claimedNames: readonly RegExp[]): Promise<string[]> {
  const children: string[] = [];
  for (const entry of await readdirOrEmpty(root)) {
    if (!entry.isDirectory() || claimedNames.some((name) => name.test(entry.name))) continue;
    const child = path.join(root, entry.name);
    if ((await lstatOrNull(path.join(child, '.git')))?.isFile()) children.push(child);
  }
  return children.sort();
}
