import { errorMessage } from '../../model/errors.js';
import type { Candidate, Removal } from '../../provider-api/candidate.js';
import type { ProviderName } from '../../model/types.js';
import type { Owner } from '../../safety/owners/owner.js';
import { formatBytes } from '../../util/format.js';
import { listGitGarbage, type GarbageFile } from './listing.js';
import type { GarbageRefusal } from './reasons.js';

/** A checkpoint repository its provider recognised as its tool's (the repository may be alive). */
export interface GarbageRepository {
  provider: ProviderName;
  /** Its git folder, whose `objects/` holds the garbage. */
  gitdir: string;
  /**
   * Where no git process may be at work while a file goes: the git folder, or the folder holding
   * it where the tool runs git from there (a shadow repository's `.git`).
   */
  area: string;
  /** The provider root each file must be inside, with no link between. */
  root: string;
  /** The repository, as reports name it (`opencode's checkpoint repository`). */
  whose: string;
  homeOwner?: Owner;
  /** Why none of its garbage may go now (the provider's source unreadable, the tool's lock held). */
  refusal?: GarbageRefusal;
  /** Proves the provider's case again right before each file goes (Kilo's lock). */
  guard?: Extract<Removal, { type: 'file' }>['guard'];
}

export interface RepositoryGarbage {
  candidates: Candidate[];
  files: GarbageFile[];
  /** Why its garbage could not be listed, when it could not. */
  problem?: string;
}

/**
 * One `git-garbage` candidate per temporary file git left in the repository (listGitGarbage),
 * each removed on its own as a single file. Nothing else in the repository is ever a candidate:
 * its loose objects and packs are checkpoints that no ref holds, by design.
 */
export async function garbageOf(repo: GarbageRepository): Promise<RepositoryGarbage> {
  let files: GarbageFile[];
  try {
    files = await listGitGarbage(repo.gitdir);
  } catch (err) {
    return {
      candidates: [],
      files: [],
      problem: `the temporary files of ${repo.gitdir} cannot be listed: ${errorMessage(err)}`,
    };
  }
  const removal: Removal = { type: 'file', repository: repo.area, ...(repo.guard ? { guard: repo.guard } : {}) };
  const candidates = files.map(
    (file): Candidate => ({
      provider: repo.provider,
      kind: 'git-garbage',
      path: file.path,
      root: repo.root,
      judgement: repo.refusal ?? {
        decision: 'delete',
        reason: 'git-temporary',
        detail: `${file.name} is a temporary file git left in ${repo.whose} ${repo.gitdir} when a gc, repack or add was killed or hung; git never reads it again (git count-objects counts it as garbage), and nothing else in the repository is touched`,
      },
      ...(repo.homeOwner ? { homeOwner: repo.homeOwner } : {}),
      removal,
    }),
  );
  return { candidates, files };
}

/** What a repository's own item says of the garbage in it, reported item by item (empty when none). */
export function garbageNote(found: RepositoryGarbage): string {
  if (found.problem) return `; ${found.problem}`;
  if (found.files.length === 0) return '';
  const bytes = found.files.reduce((sum, file) => sum + file.bytes, 0);
  const count = found.files.length;
  return `; ${count === 1 ? "one of git's temporary files" : `${count} of git's temporary files`} in it (${formatBytes(bytes)}) ${count === 1 ? 'is an item of its own' : 'are items of their own'} (git-garbage), not counted in its size`;
}
