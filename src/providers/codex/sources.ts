import { errorMessage } from '../../model/errors.js';
import type { LockTable } from '../../safety/locks/flock.js';
import { locate } from '../../safety/owners/locations.js';
import type { FoundHome } from './homes.js';
import { databaseBasis, readCodexSettings, threadDatabasesOf, worktreeRoots } from './settings.js';
import { readThreads, writerLocksSeen, type ThreadRecords, type WriterState } from './threads.js';

/** What one Codex home the pass found says of the app's worktrees. */
export type HomeReading =
  /** No Codex there: it says nothing. */
  | { found: FoundHome; state: 'absent' }
  /**
   * It cannot be read (a link to a disk not mounted here, a database that cannot be opened): every
   * worktree in a root it may share is refused (rule 27). `roots` null: which roots it uses cannot
   * be told either.
   */
  | { found: FoundHome; state: 'unreadable'; where: string; detail: string; roots: string[] | null }
  | {
      found: FoundHome;
      state: 'read';
      roots: string[];
      databases: ThreadRecords[];
      /** Its writer locks, as the plan sees them (/proc/locks). */
      writers: (thread: string) => WriterState;
    };

/** Each home read once: its location and config.toml (rule 20), its thread databases, its writer locks. */
export function readHomes(homes: readonly FoundHome[], locks: LockTable): HomeReading[] {
  return homes.map((found) => readHome(found, locks));
}

function readHome(found: FoundHome, locks: LockTable): HomeReading {
  const unreadable = (where: string, detail: string, roots: string[] | null): HomeReading => ({
    found,
    state: 'unreadable',
    where,
    detail,
    roots,
  });
  if (found.unreachable) return unreadable(found.codexHome, found.unreachable, null);
  const located = locate(found.codexHome, found.basis);
  if (located.state === 'absent') return { found, state: 'absent' };
  if (located.state !== 'found') return unreadable(found.codexHome, located.detail, null);
  const settings = readCodexSettings(found);
  if (settings.state === 'unreadable') return unreadable(found.codexHome, settings.error, null);
  const roots = worktreeRoots(found, settings.settings);
  const databases: ThreadRecords[] = [];
  for (const file of threadDatabasesOf(found, settings.settings)) {
    const basis = databaseBasis(found, file);
    if (basis === null) return unreadable(file, `whose ${file} is cannot be told: ${found.home} is gone`, roots);
    const database = locate(file, basis, 'file');
    if (database.state === 'absent') continue;
    if (database.state !== 'found') return unreadable(file, database.detail, roots);
    try {
      databases.push(readThreads(file));
    } catch (err) {
      return unreadable(file, errorMessage(err), roots);
    }
  }
  return { found, state: 'read', roots, databases, writers: writerLocksSeen(found.codexHome, locks) };
}
