export interface ClineModelServer {
  port: number;
  requests: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}
export function startClineModelServer(): Promise<ClineModelServer>;
