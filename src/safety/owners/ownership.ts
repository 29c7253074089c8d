/** What lstat says of who owns an entry and what its owner may do with it. */
export interface Ownership {
  uid: number;
  mode: number;
}

const TYPE_BITS = 0o170000;
export const FOLDER_TYPE = 0o040000;
export const FILE_TYPE = 0o100000;

/**
 * Why an entry keeps its item from being deleted as the one owner `ownerUid` (rule 20), or null: it
 * belongs to another uid; or it is a folder its owner cannot list, enter or empty (a delete as
 * that user would stop halfway), or a file its owner cannot read (git, run as that user, would not
 * see it). Root may do all of that whatever the mode bits say. Links are judged by their owner
 * alone: their mode means nothing.
 */
export function foreignBecause(ownerUid: number, entry: Ownership): string | null {
  if (!isForeign(ownerUid, entry.uid, entry.mode)) return null;
  if (entry.uid !== ownerUid) return `belongs to uid ${entry.uid}, not to the item's owner (uid ${ownerUid})`;
  if (ownerUid === 0) return null;
  const type = entry.mode & TYPE_BITS;
  if (type === FOLDER_TYPE) {
    const missing = [
      ...((entry.mode & 0o400) === 0 ? ['list'] : []),
      ...((entry.mode & 0o100) === 0 ? ['enter'] : []),
      ...((entry.mode & 0o200) === 0 ? ['empty'] : []),
    ];
    if (missing.length > 0)
      return `is a folder its owner (uid ${ownerUid}) cannot ${missing.join(', ')} (mode ${octal(entry.mode)})`;
  } else if (type === FILE_TYPE && (entry.mode & 0o400) === 0)
    return `is a file its owner (uid ${ownerUid}) cannot read (mode ${octal(entry.mode)})`;
  return null;
}

/** foreignBecause's answer as a yes or no, with nothing made: the test a walk asks of every entry. */
export function isForeign(ownerUid: number, uid: number, mode: number): boolean {
  if (uid !== ownerUid) return true;
  if (ownerUid === 0) return false;
  const type = mode & TYPE_BITS;
  if (type === FOLDER_TYPE) return (mode & 0o700) !== 0o700;
  return type === FILE_TYPE && (mode & 0o400) === 0;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
