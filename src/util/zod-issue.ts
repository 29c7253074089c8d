import type { z } from 'zod';

/** A zod issue's path as a key: `projects[0].project_id`. */
export function formatKey(parts: readonly PropertyKey[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** The one line a file zod refused gets: `<file>: <key>: <what was expected>`. */
export function issueLine(file: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${file}: invalid`;
  return `${file}: ${formatKey(issue.path) || '(top level)'}: ${issue.message}`;
}
