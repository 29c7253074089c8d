import { errorCode } from '../../model/errors.js';

/**
 * Whether an error says the entry is not there: ENOENT, or ENOTDIR where a component on the way is
 * no folder (a file now stands where a folder was named).
 */
const isMissing = (err: unknown): boolean => errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR';

/** Runs `work`; an entry that is not there answers `missing` instead of an error. */
export function ignoreMissing<T, M>(work: () => T, missing: M): T | M {
  try {
    return work();
  } catch (err) {
    if (isMissing(err)) return missing;
    throw err;
  }
}

/** ignoreMissing for asynchronous work. */
export async function ignoreMissingAsync<T, M>(work: () => Promise<T>, missing: M): Promise<T | M> {
  try {
    return await work();
  } catch (err) {
    if (isMissing(err)) return missing;
    throw err;
  }
}
