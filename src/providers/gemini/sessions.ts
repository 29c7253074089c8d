import path from 'node:path';
import { errorMessage } from '../../model/errors.js';
import { readdirOrEmpty } from '../../safety/fs/list.js';
import { readRegularFile, type FileHandle } from '../../safety/fs/read.js';
import { lstatOrNull } from '../../safety/fs/stat.js';
import type { Owner } from '../../safety/owners/owner.js';
import { whose } from '../../safety/processes/user-names.js';
import { ChatFold, companionId, legacyInfo, type SessionInfo } from './chat-record.js';

// A project's chat sessions in `tmp/<project>/`, and the files Gemini CLI's cleanup removes with
// each (0.61.0: packages/core/src/utils/sessionOperations.ts `deleteSessionArtifactsAsync`,
// `deleteSubagentSessionDirAndArtifactsAsync`; sessionCleanup.ts `cleanupExpiredSessions`).

/** `session-<YYYY-MM-DDTHH-MM>-<first 8 of the session id>.json[l]`: the files the cleanup lists. */
const CHAT_FILE = /^session-.*\.jsonl?$/;
/** The short id the cleanup groups a session's files by. */
const SHORT_ID = /-([a-zA-Z0-9]{8})\.jsonl?$/;
/** Folders of `tmp/<project>/` that are never a session's own. */
const RESERVED = new Set(['chats', 'logs', 'tool-outputs']);
/** A legacy chat file larger than this is not read as one JSON object (its session is then unknown). */
const WHOLE_MAX_BYTES = 256 * 1024 * 1024;

/** One chat file of a project, read as the cleanup reads it, or why it was not read. */
export interface ChatFile {
  name: string;
  path: string;
  /** The short id of its name, which the cleanup takes all of a session's files by. */
  shortId: string | null;
  mtimeMs: number;
  read:
    | { info: SessionInfo; companionId: string | null }
    | { reason: 'symlink' | 'foreign-owner' | 'unreadable'; detail: string };
}

/** The chat files of `chats/`, or why the folder cannot be listed as its owner's. */
export async function readChats(
  tmp: string,
  owner: Owner,
  nowMs: number,
): Promise<{ files: ChatFile[] } | { problem: string }> {
  const chats = path.join(tmp, 'chats');
  let stats: Awaited<ReturnType<typeof lstatOrNull>>;
  try {
    stats = await lstatOrNull(chats);
  } catch (err) {
    return { problem: `${chats} cannot be looked at: ${errorMessage(err)}` };
  }
  if (stats === null) return { files: [] };
  if (!stats.isDirectory()) return { problem: `${chats} is not a folder (a link is never followed)` };
  const files: ChatFile[] = [];
  let entries: Awaited<ReturnType<typeof readdirOrEmpty>>;
  try {
    entries = await readdirOrEmpty(chats);
  } catch (err) {
    return { problem: `${chats} cannot be listed: ${errorMessage(err)}` };
  }
  for (const entry of entries) {
    if (!CHAT_FILE.test(entry.name) || !(entry.isFile() || entry.isSymbolicLink())) continue;
    files.push(await readChat(path.join(chats, entry.name), owner, nowMs));
  }
  return { files: files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}

async function readChat(file: string, owner: Owner, nowMs: number): Promise<ChatFile> {
  const name = path.basename(file);
  const base = { name, path: file, shortId: SHORT_ID.exec(name)?.[1] ?? null };
  const stats = await lstatOrNull(file).catch(() => null);
  if (stats === null)
    return { ...base, mtimeMs: 0, read: { reason: 'unreadable', detail: `${file} cannot be looked at` } };
  const at = { ...base, mtimeMs: stats.mtimeMs };
  if (stats.isSymbolicLink())
    return { ...at, read: { reason: 'symlink', detail: `${file} is a link; its session is not read, nor followed` } };
  if (stats.uid !== owner.uid && stats.uid !== 0)
    return {
      ...at,
      read: { reason: 'foreign-owner', detail: `${file} belongs to ${whose(stats.uid)}, not to ${whose(owner.uid)}` },
    };
  const read = await readRegularFile(file, (handle, opened) => readOpened(handle, opened.size, opened.mtimeMs, nowMs));
  if (read === null) return { ...at, read: { reason: 'unreadable', detail: `${file} cannot be read` } };
  return { ...at, read };
}

/** One chat file's session and companion id, from a handle opened without following a link. */
async function readOpened(
  handle: FileHandle,
  size: number,
  mtimeMs: number,
  nowMs: number,
): Promise<{ info: SessionInfo; companionId: string | null } | null> {
  const head = Buffer.alloc(Math.min(4096, size));
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const fold = new ChatFold();
  for await (const line of handle.readLines({ encoding: 'utf8', start: 0, autoClose: false })) fold.line(line);
  let whole: string | null | undefined;
  const wholeText = (): string | null => whole ?? null;
  if (!fold.isJsonl || bytesRead === 0 || !head.subarray(0, bytesRead).includes(10)) {
    whole = size > WHOLE_MAX_BYTES ? null : (await readAll(handle, size)).toString('utf8');
  }
  if (!fold.isJsonl && whole === null) return null;
  const info = fold.isJsonl ? fold.info(nowMs) : legacyInfo(whole as string, mtimeMs);
  return { info, companionId: companionId(head.subarray(0, bytesRead).toString('utf8'), wholeText) };
}

async function readAll(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const { bytesRead } = await handle.read(buffer, at, size - at, at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return buffer.subarray(0, at);
}

/** The files and folders the cleanup removes with a session, named as it names them. */
export interface Companions {
  /** `logs/session-<id>.jsonl`, and each subagent's. */
  files: string[];
  /** `tool-outputs/session-<id>/`, `<id>/`, `chats/<id>/` (its subagents), and each subagent's. */
  folders: string[];
  /** Why the session's subagents cannot all be known (their folder is a link, or cannot be listed). */
  problem?: string;
}

/** `sanitizeFilenamePart`: what Gemini CLI names a session's files by. */
const sanitized = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_');

/** Whether an id names files of its own (`validateAndSanitizeSessionId`). */
const usable = (id: string): boolean => id !== '' && id !== '.' && id !== '..';

/**
 * What goes with a session, as `deleteSessionArtifactsAsync` and
 * `deleteSubagentSessionDirAndArtifactsAsync` remove it, those that exist: its log, its tool
 * outputs, its own folder, its subagents' folder `chats/<id>/` and each subagent's own log, tool
 * outputs and folder (a subagent's id is its file's name without the extension).
 */
export async function companionsOf(tmp: string, sessionId: string): Promise<Companions> {
  const found: Companions = { files: [], folders: [] };
  if (!usable(sessionId)) return found;
  await artifactsOf(tmp, sanitized(sessionId), found);
  const subagents = path.join(tmp, 'chats', sanitized(sessionId));
  const stats = await lstatOrNull(subagents).catch(() => undefined);
  if (stats === undefined) found.problem = `${subagents} cannot be looked at`;
  else if (stats?.isSymbolicLink()) found.problem = `${subagents} is a link, never followed`;
  else if (stats?.isDirectory()) {
    found.folders.push(subagents);
    try {
      for (const entry of await readdirOrEmpty(subagents))
        if (entry.isFile() && /\.jsonl?$/.test(entry.name))
          await artifactsOf(tmp, sanitized(entry.name.replace(/\.jsonl?$/, '')), found);
    } catch (err) {
      found.problem = `${subagents} cannot be listed: ${errorMessage(err)}`;
    }
  }
  return found;
}

async function artifactsOf(tmp: string, id: string, found: Companions): Promise<void> {
  if (!usable(id)) return;
  // One that cannot be looked at is listed all the same: its inspection then keeps the session.
  const exists = async (at: string) => (await lstatOrNull(at).catch(() => true)) !== null;
  const log = path.join(tmp, 'logs', `session-${id}.jsonl`);
  if (await exists(log)) found.files.push(log);
  const outputs = path.join(tmp, 'tool-outputs', `session-${id}`);
  if (await exists(outputs)) found.folders.push(outputs);
  const own = path.join(tmp, id);
  if (!RESERVED.has(id.toLowerCase()) && (await exists(own))) found.folders.push(own);
}
