import type { z } from 'zod';
import { formatKey } from './key-path.js';

/** The one line a file zod refused gets: `<file>: <key>: <what was expected>`. */
export function issueLine(file: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${file}: invalid`;
  return `${file}: ${formatKey(issue.path) || '(top level)'}: ${issue.message}`;
}
