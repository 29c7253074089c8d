// A local OpenAI-compatible model server on loopback: lists one model and streams a short answer.
// Used to drive the real Kilo CLI without any network. Run standalone to print its port.
import http from 'node:http';

export function startFakeModelServer() {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url });
      if (req.method === 'GET' && req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }],
          }),
        );
        return;
      }
      if (req.method === 'POST' && req.url?.endsWith('/chat/completions')) {
        streamAnswer(res, body);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ port, requests, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

function streamAnswer(res, body) {
  let wantsStream = true;
  try {
    wantsStream = JSON.parse(body).stream !== false;
  } catch {
    // A body that is no JSON still gets the streamed answer.
  }
  const id = `chatcmpl-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const text = 'Hi.';
  if (!wantsStream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: 'fake-model',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta, finish) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: '' }, null))}\n\n`);
  res.write(`data: ${JSON.stringify(chunk({ content: text }, null))}\n\n`);
  res.write(
    `data: ${JSON.stringify({ ...chunk({}, 'stop'), usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`,
  );
  res.write('data: [DONE]\n\n');
  res.end();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startFakeModelServer();
  process.stdout.write(`${server.port}\n`);
}
