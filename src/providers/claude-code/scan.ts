import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { readdirSync, type Dirent } from '../../safety/fs/list.js';
import { readlinkSync } from '../../safety/fs/stat.js';
import { ignoreMissing } from '../../safety/fs/ignore-missing.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';
import type { TaskLink } from './judge.js';
import { isSessionName, isSlugName, LEGACY_TASKS, sessionFolderOf, type SessionFolder } from './layout.js';
import type { TaskRoot } from './locations.js';

/** One slug folder (a project's): its session folders, quarantines, and anything else in it. */
export interface SlugListing {
  path: string;
  slug: string;
  sessions: SessionFolder[];
  quarantines: string[];
  /** Entries that are neither (a file, a folder of another shape): the slug folder then never goes whole. */
  others: number;
}

/** A slug folder with nothing in it. */
export const isEmpty = (slug: SlugListing): boolean =>
  slug.sessions.length === 0 && slug.quarantines.length === 0 && slug.others === 0;

/** What a root holds, as the rule sees it. */
export interface RootListing {
  slugs: SlugListing[];
  /** Quarantines of slug folders that went whole. */
  quarantines: string[];
  /** `tasks/` entries that are links into another session folder of the root. */
  links: TaskLink[];
  /** Folders that could not be listed: what they hold (a link that keeps another session) is unknown. */
  problems: string[];
}

/**
 * Lists a root: its slug folders (other entries, such as the file watcher's `fswatch-probe-*`,
 * are not the rule's), the session folders in each (a UUID, `session_*`, `cse_*`, or an older
 * version's `tasks/`), and the links in their `tasks/`. Links are read, never followed. A root
 * that cannot be listed throws.
 */
export function listRoot(root: TaskRoot): RootListing {
  const listing: RootListing = { slugs: [], quarantines: [], links: [], problems: [] };
  for (const entry of readdirSync(root.path)) {
    const at = path.join(root.path, entry.name);
    if (quarantinedName(entry.name) !== null) listing.quarantines.push(at);
    else if (entry.isDirectory() && isSlugName(entry.name)) listing.slugs.push(listSlug(at, entry.name, listing));
  }
  for (const slug of listing.slugs)
    for (const session of slug.sessions) listing.links.push(...linksOf(session, root, listing));
  return listing;
}

function listSlug(at: string, slug: string, listing: RootListing): SlugListing {
  const found: SlugListing = { path: at, slug, sessions: [], quarantines: [], others: 0 };
  let entries: Dirent[];
  try {
    entries = ignoreMissing(() => readdirSync(at), []);
  } catch (err) {
    listing.problems.push(`${at} cannot be listed: ${errorMessage(err)}`);
    found.others += 1;
    return found;
  }
  for (const entry of entries) {
    const folder = path.join(at, entry.name);
    if (quarantinedName(entry.name) !== null) found.quarantines.push(folder);
    else if (entry.isDirectory() && (isSessionName(entry.name) || entry.name === LEGACY_TASKS))
      found.sessions.push({ path: folder, slug, sid: entry.name === LEGACY_TASKS ? null : entry.name });
    else found.others += 1;
  }
  found.sessions.sort((a, b) => a.path.localeCompare(b.path));
  return found;
}

/** The links in a session's `tasks/` that resolve into another session folder of the root. */
function linksOf(session: SessionFolder, root: TaskRoot, listing: RootListing): TaskLink[] {
  const tasks = session.sid === null ? session.path : path.join(session.path, 'tasks');
  let entries: Dirent[];
  try {
    entries = ignoreMissing(() => readdirSync(tasks), []);
  } catch (err) {
    listing.problems.push(`${tasks} cannot be listed: ${errorMessage(err)}`);
    return [];
  }
  const links: TaskLink[] = [];
  for (const entry of entries) {
    if (!entry.isSymbolicLink()) continue;
    const link = path.join(tasks, entry.name);
    let target: string;
    try {
      target = readlinkSync(link);
    } catch (err) {
      listing.problems.push(`${link} cannot be read: ${errorMessage(err)}`);
      continue;
    }
    const into = sessionFolderOf(path.resolve(tasks, target), [root.path, root.canonical]);
    if (into !== null && into !== session.path) links.push({ link, from: session.path, into });
  }
  return links;
}
