/** Where `serve` listens: HOST:PORT, [IPv6]:PORT or :PORT (every interface). */
export interface ListenAddress {
  /** undefined: every interface. */
  host: string | undefined;
  port: number;
}

const HOST_PORT = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/;

/** The address `text` names, or null when it is none; port 0 picks a free one. */
export function parseListenAddress(text: string): ListenAddress | null {
  const match = HOST_PORT.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65_535) return null;
  const host = match[1] ?? match[2];
  return { host: host ? host : undefined, port };
}
