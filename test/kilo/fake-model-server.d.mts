export interface FakeModelServer {
  port: number;
  requests: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}
export function startFakeModelServer(): Promise<FakeModelServer>;
