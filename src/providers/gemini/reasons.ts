import { DELETES } from '../../model/reasons.js';
import type { ReasonTable } from '../../model/types.js';
import { GIT_GARBAGE_REASONS } from '../../engines/git-garbage/reasons.js';

export const GEMINI_REASONS = {
  ...GIT_GARBAGE_REASONS,
  'project-history': ['kept'],
  'project-scratch': ['kept'],
  'gemini-session-expired': DELETES,
  'gemini-running': ['refused'],
  'project-root-missing': ['refused'],
  'session-file-remains': ['refused'],
} as const satisfies ReasonTable;
