import { type ListenAddress, parseListenAddress } from '../config/listen-address.js';
import { UsageError } from '../model/errors.js';

export type { ListenAddress };

/** HOST:PORT, [IPv6]:PORT or :PORT (every interface); port 0 picks a free one (logged once bound). */
export function parseListen(text: string, where: string): ListenAddress {
  const address = parseListenAddress(text);
  if (!address) throw new UsageError(`${where}: expected HOST:PORT, such as 0.0.0.0:9464, got ${JSON.stringify(text)}`);
  return address;
}

export function formatListen(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
