export type Api = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';

/** One model request, as the script sees it. */
export interface Turn {
  api: Api;
  url: string;
  body: unknown;
  /** The names of the tools the request offers. */
  tools: string[];
  /** How many tool results the conversation already holds. */
  toolResults: number;
}

/** A text answer, or a call of one of the offered tools (any other tool name is answered with a text). */
export type Reply = { text: string; tool?: undefined } | { tool: { name: string; input: Record<string, unknown> } };

export interface FakeModelServer {
  port: number;
  requests: Array<{ method: string; url: string; api: Api | 'gemini-count' | null; body: unknown }>;
  close(): Promise<void>;
}

export function startFakeModelServer(options?: { reply?: (turn: Turn) => Reply | undefined }): Promise<FakeModelServer>;
