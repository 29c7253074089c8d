import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { ignoreMissing } from '../../safety/fs/ignore-missing.js';
import { readdirSync, type Dirent } from '../../safety/fs/list.js';
import { lstatOrNullSync, type Stats } from '../../safety/fs/stat.js';
import { quarantinedName } from '../../safety/removal/quarantine.js';
import { isSessionName } from './layout.js';
import type { RetentionClass, RetentionEntry } from './retention-judge.js';

/** What one config folder holds that Claude Code's own retention covers, as the rule sees it. */
export interface RetentionListing {
  entries: RetentionEntry[];
  /** A folder of a class that is a link: nothing through it is read (rule 20), and nothing in it goes. */
  linkedFolders: Array<{ path: string; class: RetentionClass }>;
  /** Folders that could not be listed: what is in them is not judged. */
  problems: Array<{ path: string; why: string }>;
  /** Quarantines an interrupted removal of a folder of the rule left (`session-env/`, a session's `tool-results`). */
  quarantines: string[];
  /** The transcripts (`projects/<slug>/*.jsonl`) seen on the way: reported, never judged. */
  transcripts: { files: number; bytes: number };
  /** The `projects/<slug>/<sid>/subagents/` folders seen on the way: reported, never judged. */
  subagents: string[];
}

/** The debug log Claude Code links to the current session's: never part of the sweep. */
const LATEST = 'latest';
const UUID_PREFIX = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

/**
 * Lists what Claude Code's own sweep covers in one config folder (SYSTEMS.md 10.3), never
 * following a link: `session-env/<sid>/` (folders), `debug/*` but `latest`, `todos/*`,
 * `shell-snapshots/*.sh` (files), and the `tool-results/` of every `projects/<slug>/<sid>/` whose
 * `<sid>.jsonl` transcript is gone: the folder whole when nothing in it was written since
 * `cutoffMs`, else each file in it (and its subfolders) written before. A link where an entry
 * should be is listed as a link (its own mtime): it is refused, never followed.
 */
export function listRetention(config: string, cutoffMs: number): RetentionListing {
  const listing: RetentionListing = {
    entries: [],
    linkedFolders: [],
    problems: [],
    quarantines: [],
    transcripts: { files: 0, bytes: 0 },
    subagents: [],
  };
  const entry = (at: string, stats: Stats, cls: RetentionClass, sid: string | null, slug: string | null = null) =>
    listing.entries.push({
      path: at,
      class: cls,
      type: stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'folder' : 'file',
      mtimeMs: stats.mtimeMs,
      sid,
      slug,
    });
  const each = (cls: RetentionClass, take: (name: string, stats: Stats, at: string) => void) => {
    const folder = path.join(config, cls === 'tool-results' ? 'projects' : cls);
    for (const [name, stats] of entriesOf(folder, cls, listing)) take(name, stats, path.join(folder, name));
  };

  each('session-env', (name, stats, at) => {
    if (stats.isDirectory() || stats.isSymbolicLink())
      entry(at, stats, 'session-env', isSessionName(name) ? name : null);
  });
  each('debug', (name, stats, at) => {
    if (name !== LATEST && (stats.isFile() || stats.isSymbolicLink()))
      entry(at, stats, 'debug', sessionOf(name.replace(/\.txt$/, '')));
  });
  each('todos', (name, stats, at) => {
    if (stats.isFile() || stats.isSymbolicLink()) entry(at, stats, 'todos', UUID_PREFIX.exec(name)?.[1] ?? null);
  });
  each('shell-snapshots', (name, stats, at) => {
    if (name.endsWith('.sh') && (stats.isFile() || stats.isSymbolicLink())) entry(at, stats, 'shell-snapshots', null);
  });
  each('tool-results', (slug, stats, at) => {
    if (stats.isDirectory()) listProject(at, slug, cutoffMs, listing);
  });
  return listing;
}

const sessionOf = (name: string): string | null => (isSessionName(name) ? name : null);

/**
 * The entries of a class's folder, each with its lstat; none where the folder is not there. A
 * folder that is a link is listed among `linkedFolders` and not read; one that cannot be listed is
 * a problem. Quarantines (an interrupted removal's) are left to the executor's next pass.
 */
function entriesOf(folder: string, cls: RetentionClass, listing: RetentionListing): Array<[string, Stats]> {
  let stats: Stats | null;
  let names: Dirent[];
  try {
    stats = lstatOrNullSync(folder);
    if (!stats) return [];
    if (stats.isSymbolicLink()) {
      listing.linkedFolders.push({ path: folder, class: cls });
      return [];
    }
    if (!stats.isDirectory()) return [];
    names = ignoreMissing(() => readdirSync(folder), []);
  } catch (err) {
    listing.problems.push({ path: folder, why: errorMessage(err) });
    return [];
  }
  const found: Array<[string, Stats]> = [];
  for (const name of names.map((each) => each.name).sort()) {
    if (quarantinedName(name) !== null) {
      // Only the rule's folders go through a quarantine (a single file is unlinked where it is).
      if (cls === 'session-env') listing.quarantines.push(path.join(folder, name));
      continue;
    }
    try {
      const each = lstatOrNullSync(path.join(folder, name));
      if (each) found.push([name, each]);
    } catch (err) {
      listing.problems.push({ path: path.join(folder, name), why: errorMessage(err) });
    }
  }
  return found;
}

/**
 * One project folder `projects/<slug>/`: its transcripts are counted, and each session folder
 * whose `<sid>.jsonl` is gone has its `tool-results/` listed.
 */
function listProject(project: string, slug: string, cutoffMs: number, listing: RetentionListing): void {
  for (const [name, stats] of entriesOf(project, 'tool-results', listing)) {
    const at = path.join(project, name);
    if (stats.isFile() && name.endsWith('.jsonl')) {
      listing.transcripts.files += 1;
      listing.transcripts.bytes += stats.size;
      continue;
    }
    if (!stats.isDirectory() || !isSessionName(name)) continue;
    const subagents = path.join(at, 'subagents');
    let transcript: Stats | null;
    let results: Stats | null;
    try {
      if (lstatOrNullSync(subagents)?.isDirectory()) listing.subagents.push(subagents);
      // Any entry by that name (a link included) is a transcript that may be there: the session is left alone.
      transcript = lstatOrNullSync(path.join(project, `${name}.jsonl`));
      results = transcript ? null : lstatOrNullSync(path.join(at, 'tool-results'));
    } catch (err) {
      listing.problems.push({ path: at, why: errorMessage(err) });
      continue;
    }
    if (!transcript) listing.quarantines.push(...quarantinesIn(at, listing));
    if (!results) continue;
    const folder = path.join(at, 'tool-results');
    if (results.isSymbolicLink()) listing.linkedFolders.push({ path: folder, class: 'tool-results' });
    else if (results.isDirectory()) listToolResults(folder, results, name, slug, cutoffMs, listing);
  }
}

/** The quarantines in a session folder whose transcript is gone (a `tool-results` an interrupted pass renamed). */
function quarantinesIn(session: string, listing: RetentionListing): string[] {
  try {
    return ignoreMissing(() => readdirSync(session), [])
      .filter((entry) => quarantinedName(entry.name) !== null)
      .map((entry) => path.join(session, entry.name));
  } catch (err) {
    listing.problems.push({ path: session, why: errorMessage(err) });
    return [];
  }
}

/**
 * A session's `tool-results/` with its transcript gone: one folder entry (its newest write) when
 * nothing in it was written since `cutoffMs`, else each file and link in it written before (Claude
 * Code sweeps them one by one, then the folders left empty).
 */
function listToolResults(
  folder: string,
  top: Stats,
  sid: string,
  slug: string,
  cutoffMs: number,
  listing: RetentionListing,
): void {
  const files: Array<[string, Stats]> = [];
  let newest = top.mtimeMs;
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let names: Dirent[];
    try {
      names = ignoreMissing(() => readdirSync(current), []);
    } catch (err) {
      listing.problems.push({ path: current, why: errorMessage(err) });
      return;
    }
    for (const { name } of names) {
      const at = path.join(current, name);
      let stats: Stats | null;
      try {
        stats = lstatOrNullSync(at);
      } catch (err) {
        listing.problems.push({ path: at, why: errorMessage(err) });
        return;
      }
      if (!stats) continue;
      newest = Math.max(newest, stats.mtimeMs);
      if (stats.isDirectory()) pending.push(at);
      else files.push([at, stats]);
    }
  }
  if (newest < cutoffMs) {
    listing.entries.push({ path: folder, class: 'tool-results', type: 'folder', mtimeMs: newest, sid, slug });
    return;
  }
  for (const [at, stats] of files.sort(([a], [b]) => a.localeCompare(b)))
    if (stats.mtimeMs < cutoffMs)
      listing.entries.push({
        path: at,
        class: 'tool-results',
        type: stats.isSymbolicLink() ? 'link' : 'file',
        mtimeMs: stats.mtimeMs,
        sid,
        slug,
      });
}
