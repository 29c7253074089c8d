import { errorMessage } from '../../model/errors.js';
import { measureTree, type TreeFacts } from '../../safety/walk/walk.js';

export interface NewestWrite {
  /** Newest mtime (ms) over every file and folder in the given trees, or null when none could be read. */
  ms: number | null;
  /** Why part of a tree could not be read: its age is then not known. */
  error?: string;
}

/**
 * The newest write anywhere in a worktree and its admin entry: the last sign that someone worked
 * there. A pass passes its shared walk in, so the tree is not walked again when it is inspected.
 */
export function newestWrite(trees: readonly string[], measure: (root: string) => TreeFacts = measureTree): NewestWrite {
  const result: NewestWrite = { ms: null };
  for (const tree of trees) {
    try {
      const facts = measure(tree);
      if (result.ms === null || facts.newestWriteMs > result.ms) result.ms = facts.newestWriteMs;
      if (facts.error) result.error ??= facts.error;
    } catch (err) {
      result.error ??= `${tree}: ${errorMessage(err)}`;
    }
  }
  return result;
}
