/**
 * Watchfire's own naming of session homes, so a folder name can be traced back to its project.
 * Everything here is ASCII by construction once `slug` has run, so byte and character counts agree;
 * the cuts still count bytes, as Watchfire does.
 */

const SLUG_MAX_BYTES = 30;
const SESSION_NAME_MAX_BYTES = 80;

/**
 * Lowercase; keep a-z, 0-9 and `-`; space and `_` become `-`; every other character is dropped;
 * cut to 30 bytes; trailing `-` trimmed. Dashes are neither collapsed nor trimmed at the front.
 */
export function slug(name: string): string {
  let out = '';
  for (const char of name.toLowerCase()) {
    if ((char >= 'a' && char <= 'z') || (char >= '0' && char <= '9') || char === '-') out += char;
    else if (char === ' ' || char === '_') out += '-';
  }
  return trimTrailing(cutBytes(out, SLUG_MAX_BYTES), '-');
}

export interface SessionNameParts {
  projectName: string;
  mode: string;
  task?: { number: number; title: string };
}

/**
 * `slug(project) + ":" + mode`, plus `":#NNNN-" + slug(title)` for a task; cut to 80 bytes,
 * trailing `-` and `:` trimmed, and `/`, `\` and space made `_` so the name is one path component.
 */
export function sessionName(parts: SessionNameParts): string {
  let name = `${slug(parts.projectName)}:${parts.mode}`;
  if (parts.task) name += `:#${String(parts.task.number).padStart(4, '0')}-${slug(parts.task.title)}`;
  name = trimTrailing(cutBytes(name, SESSION_NAME_MAX_BYTES), '-:');
  return name.replace(/[/\\ ]/g, '_');
}

/**
 * The slug a home's folder name starts with, or null when the name cannot be a session name
 * (no `:`, or a prefix that no slug could be).
 */
export function homeSlug(folderName: string): string | null {
  const colon = folderName.indexOf(':');
  if (colon === -1) return null;
  const prefix = folderName.slice(0, colon);
  if (Buffer.byteLength(prefix) > SLUG_MAX_BYTES || !/^[a-z0-9-]*$/.test(prefix) || prefix.endsWith('-')) return null;
  return prefix;
}

/** True when a home's folder name belongs to a project whose slug is `projectSlug`. */
export function belongsToSlug(folderName: string, projectSlug: string): boolean {
  return folderName.startsWith(`${projectSlug}:`);
}

function cutBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  // Never split a character: drop a trailing partial sequence (only reachable with non-ASCII input).
  return bytes
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD+$/u, '');
}

function trimTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1] as string)) end -= 1;
  return text.slice(0, end);
}
