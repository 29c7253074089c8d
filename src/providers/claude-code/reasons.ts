import type { ReasonTable } from '../../core/reasons.js';

export const CLAUDE_CODE_REASONS = {} as const satisfies ReasonTable;
