import type { ReasonTable } from '../../model/types.js';
import { GIT_GARBAGE_REASONS } from '../../engines/git-garbage/reasons.js';

export const GEMINI_REASONS = {
  ...GIT_GARBAGE_REASONS,
  'project-history': ['kept'],
  'project-scratch': ['kept'],
} as const satisfies ReasonTable;
