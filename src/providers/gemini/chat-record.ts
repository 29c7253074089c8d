// A chat file of Gemini CLI's, read as its own session cleanup reads it (0.61.0:
// packages/core/src/services/chatRecordingService.ts `loadConversationRecord` with `metadataOnly`,
// packages/cli/src/utils/sessionUtils.ts `getAllSessionFiles`, sessionCleanup.ts). Pure: the lines
// and the file's mtime are handed in.

/** What the cleanup knows of one chat file: nothing (`null`: unreadable, empty or not resumable), or when it was last updated. */
export type SessionInfo = { lastUpdatedMs: number } | null;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object';
const isMessage = (record: Json): boolean => typeof record.id === 'string';

/**
 * The records of a JSONL chat file, folded line by line as Gemini CLI folds them: a metadata record
 * (`sessionId` and `projectHash`), messages (`id`), `$set` updates (which may replace the
 * messages), `$rewindTo` (which drops the messages from that one on). A line that is no JSON is
 * skipped, as it does.
 */
export class ChatFold {
  private metadata: Json = {};
  private ids: string[] = [];
  private resumable = new Map<string, boolean>();

  line(text: string): void {
    if (text.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObject(record)) return;
    if (typeof record.$rewindTo === 'string') {
      const at = this.ids.indexOf(record.$rewindTo);
      const dropped = at === -1 ? this.ids.splice(0) : this.ids.splice(at);
      for (const id of dropped) this.resumable.delete(id);
    } else if (isMessage(record)) this.message(record);
    else if (isObject(record.$set)) {
      const update = record.$set;
      if (Array.isArray(update.messages)) {
        this.ids = [];
        this.resumable.clear();
        this.messages(update.messages);
      }
      this.metadata = { ...this.metadata, ...update };
    } else if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
      this.metadata = { ...this.metadata, ...record };
      if (Array.isArray(record.messages)) this.messages(record.messages);
    }
  }

  /** Whether the file held a session's metadata at all; without it Gemini CLI reads it as a legacy JSON file. */
  get isJsonl(): boolean {
    return Boolean(this.metadata.sessionId) && Boolean(this.metadata.projectHash);
  }

  /**
   * The session as the cleanup sees it. A missing `lastUpdated` reads as "now" (Gemini CLI fills it
   * in so): such a session never expires by age.
   */
  info(nowMs: number): SessionInfo {
    const resumable = [...this.resumable.values()].some(Boolean);
    if (!resumable || this.metadata.kind === 'subagent') return null;
    return { lastUpdatedMs: timeOf(this.metadata.lastUpdated, nowMs) };
  }

  private message(record: Json): void {
    const id = record.id as string;
    this.ids.push(id);
    this.resumable.set(id, isResumableMessage(record));
  }

  private messages(list: unknown[]): void {
    for (const each of list) if (isObject(each) && isMessage(each)) this.message(each);
  }
}

/**
 * A legacy `.json` chat file (one JSON object with `sessionId` and `messages`): when it was last
 * updated, the file's mtime standing in for timestamps it lacks; null when it is no such object or
 * holds nothing to resume.
 */
export function legacyInfo(text: string, mtimeMs: number): SessionInfo {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(record) || !('sessionId' in record) || !record.sessionId) return null;
  const messages = Array.isArray(record.messages) ? record.messages : [];
  const resumable = messages.some((message) => isObject(message) && isResumableMessage(message));
  if (!resumable || record.kind === 'subagent') return null;
  const fallback = !record.startTime || !record.lastUpdated ? mtimeMs : Number.NaN;
  return { lastUpdatedMs: timeOf(record.lastUpdated || record.startTime, fallback) };
}

/**
 * The session id Gemini CLI's cleanup takes the file's companions by: the `sessionId` of the first
 * line within the first 4096 bytes, else of the whole file read as one JSON object.
 */
export function companionId(head: string, whole: () => string | null): string | null {
  const newline = head.indexOf('\n');
  const first = newline === -1 ? head : head.slice(0, newline);
  const fromFirst = sessionIdOf(first);
  if (fromFirst !== null) return fromFirst;
  const text = whole();
  return text === null ? null : sessionIdOf(text);
}

function sessionIdOf(text: string): string | null {
  try {
    const record: unknown = JSON.parse(text);
    return isObject(record) && typeof record.sessionId === 'string' ? record.sessionId : null;
  } catch {
    return null;
  }
}

/** A timestamp as `new Date(x)` reads it; `fallback` for one that is absent. */
function timeOf(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'number') return value;
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** `isResumableMessageRecord`: a user message that is not a command or injected context, or a model turn with something in it. */
function isResumableMessage(message: Json): boolean {
  const content = message.content ? partsToString(message.content).trim() : '';
  if (message.type === 'user') return !isIgnoredUserContent(content);
  if (message.type === 'gemini')
    return content.length > 0 || lengthOf(message.toolCalls) > 0 || lengthOf(message.thoughts) > 0;
  return false;
}

const IGNORED_PREFIXES = ['/', '?', '<session_context>', '<hook_context>'];

function isIgnoredUserContent(content: string): boolean {
  return content.length === 0 || IGNORED_PREFIXES.some((prefix) => content.startsWith(prefix));
}

const lengthOf = (value: unknown): number => (Array.isArray(value) || typeof value === 'string' ? value.length : 0);

/** What non-text parts Gemini CLI names (`[Function Call: …]`): only that they are not empty matters here. */
const NAMED_PARTS = [
  'videoMetadata',
  'thought',
  'codeExecutionResult',
  'executableCode',
  'fileData',
  'functionCall',
  'functionResponse',
  'inlineData',
];

/** `partListUnionToString`, as far as emptiness and the leading characters go. */
function partsToString(value: unknown): string {
  if (!value) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(partsToString).join('');
  if (!isObject(value)) return '';
  const named = NAMED_PARTS.find((key) => value[key] !== undefined);
  if (named) return `[${named}]`;
  return value.text === undefined || value.text === null ? '' : String(value.text);
}
