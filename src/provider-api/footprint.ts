import type { FootprintCategory } from '../model/types.js';
import type { LocationBasis } from '../safety/owners/location-basis.js';

/** What a place of a tool's layout holds: every category but `scratch`, which is the items'. */
export type PlaceCategory = Exclude<FootprintCategory, 'scratch'>;

/**
 * A place of a tool's state on disk and what it holds, as its provider declares it for the
 * footprint (the report's `footprint`, src/pass/footprint.ts). A provider declares, for each home
 * or location it finds, the tool's whole folder (as `other`) and the places in it that hold
 * something else (`transcripts`, `logs`…); the pass measures each place less what lies in it: the
 * items of the kinds a pass may delete (counted as `scratch`), and the places declared inside it
 * (counted as theirs). So a place needs no list of what is not in it, and each byte is counted once.
 *
 * The pass reads a place only through the resolver of locations (rule 20), from `basis`: never
 * through a link to another user's files. A place that is not there is no error.
 */
export interface FootprintPlace {
  /** A folder (or a file) of the tool's state, as its layout names it. */
  path: string;
  /**
   * A pattern below `path`, one or more names joined by `/` (`*.db*`; `tmp/<*>/chats` written with a
   * plain `*`): each entry it matches is a place. `*`, `?` and `[…]` match within one name, and a
   * leading dot only where the pattern writes it. The folders on its way must be real folders: no
   * link below `path` is followed.
   */
  pattern?: string;
  category: PlaceCategory;
  /** Whose it is: the home it was derived from, or the owner of the location it was found beside (rule 20). */
  basis: LocationBasis;
}
