// A local OpenAI-compatible model server on loopback that plays a model for Cline: its first answer
// in a task writes a file (Cline 3's XML tool call, so that the turn ends in a checkpoint commit),
// its next one, once the tool's result is in the conversation, completes the task. No network.
import http from 'node:http';

export function startClineModelServer() {
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
        stream(res, answerTo(body));
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

function answerTo(body) {
  let later = '';
  try {
    later = JSON.stringify(JSON.parse(body).messages.slice(1));
  } catch {
    // A body that is no JSON gets the first answer.
  }
  return later.includes('write_to_file for')
    ? '<attempt_completion>\n<result>Wrote hello.txt.</result>\n</attempt_completion>'
    : '<write_to_file>\n<path>hello.txt</path>\n<content>hello\n</content>\n</write_to_file>';
}

function stream(res, text) {
  const id = `chatcmpl-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta, finish) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: text }, null))}\n\n`);
  res.write(
    `data: ${JSON.stringify({ ...chunk({}, 'stop'), usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\n`,
  );
  res.write('data: [DONE]\n\n');
  res.end();
}
