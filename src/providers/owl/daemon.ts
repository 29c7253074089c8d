import { createConnection } from 'node:net';

export type DaemonLiveness =
  | { state: 'live'; socket: string }
  | { state: 'dead'; tried: string[] }
  | { state: 'unknown'; socket: string; why: string };

const CONNECT_TIMEOUT_MS = 1_500;

/**
 * Whether owld is live: some socket of its accepts a connection. A socket file left by a killed
 * daemon refuses (ECONNREFUSED), so only a real connect tells. A connect that neither succeeds nor
 * fails in time is unknown, and then the daemon is given the benefit of the doubt.
 */
export async function probeDaemon(sockets: readonly string[]): Promise<DaemonLiveness> {
  let unknown: DaemonLiveness | null = null;
  for (const socket of sockets) {
    const answer = await connectOnce(socket);
    if (answer === 'accepted') return { state: 'live', socket };
    if (answer !== 'refused') unknown ??= { state: 'unknown', socket, why: answer };
  }
  return unknown ?? { state: 'dead', tried: [...sockets] };
}

function connectOnce(socket: string): Promise<'accepted' | 'refused' | string> {
  return new Promise((resolve) => {
    const connection = createConnection({ path: socket });
    const timer = setTimeout(() => {
      connection.destroy();
      resolve(`no answer from ${socket} within ${CONNECT_TIMEOUT_MS} ms`);
    }, CONNECT_TIMEOUT_MS);
    connection.once('connect', () => {
      clearTimeout(timer);
      connection.destroy();
      resolve('accepted');
    });
    connection.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      connection.destroy();
      // Nothing there, nobody listening, or not a socket at all: no daemon behind this path.
      if (['ENOENT', 'ECONNREFUSED', 'ENOTSOCK', 'ENOTDIR', 'ECONNRESET'].includes(err.code ?? '')) resolve('refused');
      else resolve(`${socket}: ${err.code ?? err.message}`);
    });
  });
}
