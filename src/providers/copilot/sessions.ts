import path from 'node:path';
import { parse } from 'yaml';
import { errorMessage } from '../../model/errors.js';
import { readdirSync } from '../../safety/fs/list.js';
import { readRegularFileSync } from '../../safety/fs/read.js';
import { locate } from '../../safety/owners/locations.js';
import type { Owner } from '../../safety/owners/owner.js';
import { isPlainObject } from '../../util/plain-object.js';
import { IN_USE_LOCK, sessionStateFolder, WORKSPACE_FILE, type CopilotHome } from './layout.js';

/** What a session's `workspace.yaml` says, as far as this provider reads it. */
interface Workspace {
  cwd: string | null;
  gitRoot: string | null;
  name: string | null;
  /** The name was given by the user (`/rename`, `--name`): Copilot's prune skips it. */
  userNamed: boolean;
  updatedAt: string | null;
}

/** One `session-state/<id>/` folder, as read from the disk. */
export interface SessionFolder {
  id: string;
  folder: string;
  /** Its workspace.yaml; null where there is none; a problem where it cannot be read. */
  workspace: Workspace | { problem: string } | null;
  /** The pids its `inuse.<pid>.lock` files name. */
  lockPids: number[];
}

/** A home's `session-state/`: not there, read, or why it cannot be read. */
export type SessionState =
  | { state: 'absent' }
  | { state: 'read'; owner: Owner; sessions: SessionFolder[] }
  | { state: 'unreadable'; detail: string };

/** Larger than any workspace.yaml Copilot writes (ten short fields). */
const MAX_WORKSPACE_BYTES = 256 * 1024;

/**
 * Every session folder of a home, with its workspace.yaml and its in-use locks. The folder and
 * `session-state/` are the home owner's (rule 20), never read through a link to another user's.
 */
export function readSessionState(home: CopilotHome): SessionState {
  const folder = sessionStateFolder(home.dir);
  const located = locate(folder, home.basis);
  if (located.state === 'absent') return { state: 'absent' };
  if (located.state !== 'found') return { state: 'unreadable', detail: located.detail };
  let entries: ReturnType<typeof readdirSync>;
  try {
    entries = readdirSync(folder);
  } catch (err) {
    return { state: 'unreadable', detail: `${folder} cannot be listed: ${errorMessage(err)}` };
  }
  const sessions: SessionFolder[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const session = path.join(folder, entry.name);
    let names: string[];
    try {
      names = readdirSync(session).map((each) => each.name);
    } catch (err) {
      sessions.push({
        id: entry.name,
        folder: session,
        workspace: { problem: `${session} cannot be listed: ${errorMessage(err)}` },
        lockPids: [],
      });
      continue;
    }
    const lockPids = names.flatMap((name) => {
      const match = IN_USE_LOCK.exec(name);
      return match ? [Number(match[1])] : [];
    });
    sessions.push({ id: entry.name, folder: session, workspace: readWorkspace(session), lockPids });
  }
  return { state: 'read', owner: located.owner, sessions: sessions.sort((a, b) => a.id.localeCompare(b.id)) };
}

/** `workspace.yaml`: a small regular file, never followed through a link. */
function readWorkspace(session: string): SessionFolder['workspace'] {
  const file = path.join(session, WORKSPACE_FILE);
  let bytes: Buffer | null;
  try {
    bytes = readRegularFileSync(file, MAX_WORKSPACE_BYTES);
  } catch (err) {
    return { problem: `${file} cannot be read: ${errorMessage(err)}` };
  }
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = parse(bytes.toString('utf8'));
  } catch (err) {
    return { problem: `${file} is not YAML: ${errorMessage(err)}` };
  }
  if (!isPlainObject(value)) return { problem: `${file} is not a mapping of Copilot's workspace fields` };
  const text = (key: string): string | null => {
    const field = value[key];
    return typeof field === 'string' && field !== '' ? field : null;
  };
  return {
    cwd: text('cwd'),
    gitRoot: text('git_root'),
    name: text('name'),
    userNamed: value.user_named === true,
    updatedAt: text('updated_at'),
  };
}
