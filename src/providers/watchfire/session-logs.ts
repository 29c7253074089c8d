import type { Dirent } from '../../safety/fs/list.js';
import path from 'node:path';
import * as z from 'zod';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readRegularFile } from '../../safety/fs/read.js';
import { mapLimit } from '../../util/limit.js';

/** The header of one session log: the proof that a session ended and its transcript was exported. */
export interface SessionLog {
  file: string;
  projectId: string;
  endedAtMs: number;
  status: string;
}

const HEADER_BYTES = 8192;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Project ids become path components here, so only plain names are followed. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The `key: value` lines between a log's two `---` lines, or null when it has no complete header. */
function headerFields(text: string): Map<string, string> | null {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines[0] !== '---') return null;
  const fields = new Map<string, string>();
  for (const line of lines.slice(1)) {
    if (line === '---') return fields;
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    fields.set(line.slice(0, colon).trim(), unquote(line.slice(colon + 1).trim()));
  }
  return null;
}

/**
 * Parses the `---` header of a session log. Answers null for anything that is not a complete
 * header with a valid `ended_at`.
 */
export function parseLogHeader(text: string): { projectId: string | null; endedAtMs: number; status: string } | null {
  const fields = headerFields(text);
  if (!fields) return null;
  const header = logHeader.safeParse(Object.fromEntries(fields));
  if (!header.success) return null;
  return { projectId: header.data.project_id, endedAtMs: header.data.ended_at, status: header.data.status };
}

/** The fields of a header this tool reads; the others (agent, mode, task…) are left as they are. */
const logHeader = z.looseObject({
  ended_at: z
    .string()
    .regex(RFC3339)
    .transform((ended) => Date.parse(ended))
    .refine((endedAtMs) => !Number.isNaN(endedAtMs)),
  project_id: z
    .string()
    .optional()
    .transform((id) => id || null),
  status: z.string().default(''),
});

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]))
    return value.slice(1, -1);
  return value;
}

/**
 * The session logs of each project, from `logs/<project_id>/<logID>.log`. A log whose header
 * names another project is ignored; unreadable logs prove nothing and are skipped. All of them are
 * kept (only their headers), so a judge can tell the latest credible one from one dated ahead of
 * the clock.
 */
export async function sessionLogsByProject(
  logsDir: string,
  projectIds: readonly string[],
): Promise<Map<string, SessionLog[]>> {
  const byProject = new Map<string, SessionLog[]>();
  for (const projectId of new Set(projectIds)) {
    if (!SAFE_ID.test(projectId)) continue;
    const dir = path.join(logsDir, projectId);
    let entries: Dirent[];
    try {
      entries = await readdirOrEmpty(dir);
    } catch {
      continue;
    }
    const files = entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.log') && entry.name !== 'daemon.log')
      .map((entry) => path.join(dir, entry.name));
    const logs = await mapLimit(files, 8, (file) => readLog(file));
    const own = logs.filter((log): log is SessionLog => log !== null && log.projectId === projectId);
    if (own.length > 0) byProject.set(projectId, own);
  }
  return byProject;
}

function readLog(file: string): Promise<SessionLog | null> {
  // Only a plain file can be a session log: never through a link, never waiting on a FIFO.
  return readRegularFile(file, async (handle) => {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    const header = parseLogHeader(buffer.subarray(0, bytesRead).toString('utf8'));
    if (!header || header.projectId === null) return null;
    return { file, projectId: header.projectId, endedAtMs: header.endedAtMs, status: header.status };
  });
}
