import http from 'node:http';
import type { Logger } from 'pino';
import { errorMessage } from '../model/errors.js';
import type { Health } from './health.js';

export interface Routes {
  metrics(): Promise<{ contentType: string; text: string }>;
  health(): Health;
  /** The latest report.json, or null before the first. */
  report(): Promise<string | null>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** GET (and HEAD) /metrics, /healthz and /report; everything else is a JSON 404 or 405. */
export function createServeHttp(routes: Routes, log: Logger): http.Server {
  return http.createServer((request, response) => {
    answer(routes, request, response).catch((err: unknown) => {
      log.error({ err: errorMessage(err), url: request.url }, 'request failed');
      if (!response.headersSent)
        send(response, 500, JSON_TYPE, json({ error: `internal error: ${errorMessage(err)}` }));
      else response.destroy();
    });
  });
}

async function answer(routes: Routes, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  const known = pathname === '/metrics' || pathname === '/healthz' || pathname === '/report';
  if (!known) {
    send(response, 404, JSON_TYPE, json({ error: `no such path ${pathname}; try /metrics, /healthz or /report` }));
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    send(response, 405, JSON_TYPE, json({ error: `${pathname} answers GET and HEAD only` }));
    return;
  }
  if (pathname === '/metrics') {
    const { contentType, text } = await routes.metrics();
    send(response, 200, contentType, text);
  } else if (pathname === '/healthz') {
    const health = routes.health();
    send(response, health.status, JSON_TYPE, json(health.body));
  } else {
    const report = await routes.report();
    if (report === null)
      send(response, 404, JSON_TYPE, json({ error: 'no report yet: the first pass has not finished' }));
    else send(response, 200, JSON_TYPE, report);
  }
}

function send(response: http.ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  response.end(body);
}

function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
