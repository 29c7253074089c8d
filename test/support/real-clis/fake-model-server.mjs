// A local model server on loopback that speaks the four wire formats the agent CLIs use: OpenAI chat
// completions (Kilo, opencode, Qwen Code), OpenAI Responses (Codex), Anthropic Messages (Claude
// Code) and Gemini generateContent (Gemini CLI). A script decides each answer: a text, or a call of
// one of the tools the request offers. No network. Run standalone to print its port.
import http from 'node:http';

/**
 * @param {{ reply?: (turn: import('./fake-model-server.d.mts').Turn) => import('./fake-model-server.d.mts').Reply }} [options]
 */
export function startFakeModelServer(options = {}) {
  const reply = options.reply ?? (() => ({ text: 'Hi.' }));
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const url = req.url ?? '';
      const api = apiOf(req.method, url);
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        // A body that is no JSON is answered like an empty one.
      }
      requests.push({ method: req.method, url, api, body });
      if (req.method === 'GET' && /\/models(\?|$)/.test(url)) return models(res, url);
      if (api === null) return notFound(res, req.method, url);
      if (api === 'gemini-count') return json(res, { totalTokens: 5 });
      const turn = { api, url, body, tools: toolsOf(api, body), toolResults: toolResultsOf(api, body) };
      let answer = reply(turn) ?? { text: 'Hi.' };
      // A call of a tool the request does not offer (a title or summary request) becomes a text.
      if (answer.tool && !turn.tools.includes(answer.tool.name)) answer = { text: 'Hi.' };
      const stream = api === 'gemini' ? url.includes(':streamGenerateContent') : body?.stream !== false;
      WRITERS[api](res, answer, stream);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        port,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

function apiOf(method, url) {
  if (method !== 'POST') return null;
  const path = url.split('?')[0];
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  if (path.endsWith('/responses')) return 'openai-responses';
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith(':countTokens')) return 'gemini-count';
  if (path.endsWith(':generateContent') || path.endsWith(':streamGenerateContent')) return 'gemini';
  return null;
}

function toolsOf(api, body) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  if (api === 'openai-chat') return tools.map((tool) => tool.function?.name).filter(Boolean);
  if (api === 'openai-responses') return tools.map((tool) => tool.name).filter(Boolean);
  if (api === 'anthropic') return tools.map((tool) => tool.name).filter(Boolean);
  return tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((fn) => fn.name));
}

function toolResultsOf(api, body) {
  if (api === 'openai-chat') return (body?.messages ?? []).filter((m) => m.role === 'tool').length;
  if (api === 'openai-responses') {
    return (Array.isArray(body?.input) ? body.input : []).filter((item) => item.type === 'function_call_output').length;
  }
  if (api === 'anthropic') {
    return (body?.messages ?? [])
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((part) => part.type === 'tool_result').length;
  }
  return (body?.contents ?? []).flatMap((c) => c.parts ?? []).filter((part) => part.functionResponse).length;
}

let calls = 0;
const callId = () => `call_${Date.now().toString(36)}${(++calls).toString(36)}`;
const USAGE = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };

function models(res, url) {
  if (url.includes('/v1beta/')) return json(res, { models: [{ name: 'models/fake-model' }] });
  return json(res, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
}

function notFound(res, method, url) {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `no route ${method} ${url}` } }));
}

function json(res, value) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [event, data] of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }
  res.end();
}

const WRITERS = { 'openai-chat': openAiChat, 'openai-responses': openAiResponses, anthropic, gemini };

function openAiChat(res, answer, stream) {
  const id = `chatcmpl-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const call = answer.tool && {
    index: 0,
    id: callId(),
    type: 'function',
    function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.input) },
  };
  const finish = call ? 'tool_calls' : 'stop';
  if (!stream) {
    const message = call
      ? { role: 'assistant', content: null, tool_calls: [{ ...call, index: undefined }] }
      : { role: 'assistant', content: answer.text };
    return json(res, {
      id,
      object: 'chat.completion',
      created,
      model: 'fake-model',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: USAGE,
    });
  }
  const chunk = (delta, finishReason) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  sse(res, [
    [null, chunk({ role: 'assistant', content: '' }, null)],
    [null, chunk(call ? { tool_calls: [call] } : { content: answer.text }, null)],
    [null, { ...chunk({}, finish), usage: USAGE }],
    [null, '[DONE]'],
  ]);
}

function openAiResponses(res, answer) {
  const id = `resp_${Date.now()}`;
  const item = answer.tool
    ? {
        type: 'function_call',
        id: `fc_${Date.now()}`,
        call_id: callId(),
        name: answer.tool.name,
        arguments: JSON.stringify(answer.tool.input),
        status: 'completed',
      }
    : {
        type: 'message',
        id: `msg_${Date.now()}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: answer.text, annotations: [] }],
      };
  const usage = {
    input_tokens: 5,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 2,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 7,
  };
  sse(res, [
    ['response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress' } }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    [
      'response.completed',
      { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage } },
    ],
  ]);
}

function anthropic(res, answer, stream) {
  const id = `msg_${Date.now()}`;
  const block = answer.tool
    ? { type: 'tool_use', id: `toolu_${callId()}`, name: answer.tool.name, input: answer.tool.input }
    : { type: 'text', text: answer.text };
  const stopReason = answer.tool ? 'tool_use' : 'end_turn';
  const message = { id, type: 'message', role: 'assistant', model: 'fake-model', stop_sequence: null };
  const usage = { input_tokens: 5, output_tokens: 2 };
  if (!stream) return json(res, { ...message, content: [block], stop_reason: stopReason, usage });
  const start = answer.tool ? { ...block, input: {} } : { type: 'text', text: '' };
  const delta = answer.tool
    ? { type: 'input_json_delta', partial_json: JSON.stringify(answer.tool.input) }
    : { type: 'text_delta', text: answer.text };
  sse(res, [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 2 } },
    ],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

function gemini(res, answer, stream) {
  const part = answer.tool
    ? { functionCall: { name: answer.tool.name, args: answer.tool.input } }
    : { text: answer.text };
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
    modelVersion: 'fake-model',
  };
  if (!stream) return json(res, chunk);
  sse(res, [[null, chunk]]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startFakeModelServer();
  process.stdout.write(`${server.port}\n`);
}
