/**
 * Removing and renaming one entry. A missing entry (ENOENT) is success for what removes; a folder
 * that is no folder (ENOTDIR from rmdir) is not.
 */
import * as fs from 'node:fs';
import { errorCode } from '../../model/errors.js';
import { encodeText } from './names.js';
import { named, respelledPair } from './paths.js';

export function renameSync(from: string, to: string): void {
  if (from.isWellFormed() && to.isWellFormed()) {
    fs.renameSync(from, to);
    return;
  }
  try {
    fs.renameSync(encodeText(from), encodeText(to));
  } catch (err) {
    throw respelledPair(err, from, to);
  }
}

const unlinkNamed = (p: string): void => (p.isWellFormed() ? fs.unlinkSync(p) : named(p, fs.unlinkSync));
const rmdirNamed = (p: string): void => (p.isWellFormed() ? fs.rmdirSync(p) : named(p, (at) => fs.rmdirSync(at)));

/** Runs `remove`; answers false, instead of an error, where the entry was not there. */
function removedIfPresent(remove: () => void): boolean {
  try {
    remove();
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

export const unlinkSync = (p: string): void => void removedIfPresent(() => unlinkNamed(p));
export const rmdirSync = (p: string): void => void removedIfPresent(() => rmdirNamed(p));
/** unlink that answers false, instead of succeeding quietly, where the entry was not there. */
export const unlinkIfPresentSync = (p: string): boolean => removedIfPresent(() => unlinkNamed(p));
/** rmdir that answers false, instead of succeeding quietly, where the folder was not there. */
export const rmdirIfPresentSync = (p: string): boolean => removedIfPresent(() => rmdirNamed(p));
