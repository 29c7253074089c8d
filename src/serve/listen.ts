import { UsageError } from '../core/errors.js';

export interface ListenAddress {
  /** undefined: every interface. */
  host: string | undefined;
  port: number;
}

/** HOST:PORT, [IPv6]:PORT or :PORT (every interface); port 0 picks a free one (logged once bound). */
export function parseListen(text: string, where: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65_535) {
    throw new UsageError(`${where}: expected HOST:PORT, such as 0.0.0.0:9464, got ${JSON.stringify(text)}`);
  }
  const host = match[1] ?? match[2];
  return { host: host ? host : undefined, port };
}

export function formatListen(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
