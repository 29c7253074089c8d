// Container HEALTHCHECK for `agent-janitor serve`: healthy while GET /healthz answers 200.
// Node's own http client, so the image needs no curl. The address defaults to serve's default
// listen port; set AGENT_JANITOR_HEALTHCHECK_URL when serve listens elsewhere.
import http from 'node:http';

const url = process.env.AGENT_JANITOR_HEALTHCHECK_URL ?? 'http://127.0.0.1:9464/healthz';
const TIMEOUT_MS = 8_000;

const request = http.get(url, { timeout: TIMEOUT_MS }, (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (body += chunk));
  response.on('end', () => {
    const healthy = response.statusCode === 200;
    process.stdout.write(`${url}: ${response.statusCode} ${body.trim().slice(0, 500)}\n`);
    process.exit(healthy ? 0 : 1);
  });
});
request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
request.on('error', (err) => {
  process.stdout.write(`${url}: ${err.message}\n`);
  process.exit(1);
});
