// A client (plain Node, no wirecheck code) whose lifecycle is right: initialize, then
// notifications/initialized, then BATCHES JSON-RPC batches of BATCH_SIZE pings each (default one
// of 10,001: more answers than a mock's journal keeps), sent at once without waiting for their
// answers, then the tool call, whose result it prints. Over stdio, SSE (2024-11-05) and
// Streamable HTTP (2025-03-26).
import { spawn } from 'node:child_process';
import http from 'node:http';

const BATCH_SIZE = Number(process.env.BATCH_SIZE ?? 10_001);
const BATCHES = Number(process.env.BATCHES ?? 1);
const INFO = { name: 'batch-flood', version: '1' };

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Batch `b` of pings, ids from 1,000,000 up so that they meet no other id. */
const batch = (b) =>
  Array.from({ length: BATCH_SIZE }, (_, k) => ({
    jsonrpc: '2.0',
    id: 1_000_000 + b * BATCH_SIZE + k,
    method: 'ping',
  }));

const initialize = (protocolVersion) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: INFO },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (input) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: input.tool, arguments: input.arguments ?? {} },
});

function post(url, headers, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (d) => {
        text += d;
      });
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** The messages of a Streamable HTTP answer: a JSON body or an event stream's data. */
function messagesOf(answer) {
  if (!(answer.headers['content-type'] ?? '').includes('text/event-stream')) {
    return answer.text.trim() === '' ? [] : [JSON.parse(answer.text)].flat();
  }
  return answer.text
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n'),
    )
    .filter((data) => data.trim() !== '')
    .flatMap((data) => [JSON.parse(data)].flat());
}

async function overHttp(input) {
  const url = new URL(process.env.WIRECHECK_SERVER_URL);
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await post(url, base, initialize('2025-03-26'));
  const headers = { ...base, 'mcp-session-id': init.headers['mcp-session-id'] };
  await post(url, headers, initialized);
  await Promise.all(Array.from({ length: BATCHES }, (_, b) => post(url, headers, batch(b))));
  const reply = messagesOf(await post(url, headers, call(input))).find((m) => m.id === 2);
  return reply.result;
}

async function overSse(input) {
  const url = new URL(process.env.WIRECHECK_SERVER_URL);
  const waiters = new Map();
  let endpoint;
  http.get(url, { headers: { accept: 'text/event-stream' } }, (response) => {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (d) => {
      buffer += d;
      for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const type = /^event: ?(.*)$/m.exec(event)?.[1];
        const data = event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (type === 'endpoint') {
          endpoint = new URL(data, url);
          waiters.get('endpoint')?.();
        } else if (data.trim() !== '') {
          for (const m of [JSON.parse(data)].flat()) waiters.get(m.id)?.(m);
        }
      }
    });
  });
  await new Promise((resolve) => waiters.set('endpoint', resolve));
  const headers = { 'content-type': 'application/json' };
  const ask = async (message) => {
    const answered = new Promise((resolve) => waiters.set(message.id, resolve));
    await post(endpoint, headers, message);
    return answered;
  };
  await ask(initialize('2024-11-05'));
  await post(endpoint, headers, initialized);
  await Promise.all(Array.from({ length: BATCHES }, (_, b) => post(endpoint, headers, batch(b))));
  return (await ask(call(input))).result;
}

async function overStdio(input) {
  const server = spawn('sh', ['-c', process.env.WIRECHECK_SERVER_CMD], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiters = new Map();
  let buffer = '';
  server.stdout.setEncoding('utf8');
  server.stdout.on('data', (d) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      try {
        for (const m of [JSON.parse(line)].flat()) waiters.get(m.id)?.(m);
      } catch {}
    }
  });
  const send = (message) => server.stdin.write(`${JSON.stringify(message)}\n`);
  const ask = (message) => {
    const answered = new Promise((resolve) => waiters.set(message.id, resolve));
    send(message);
    return answered;
  };
  await ask(initialize('2024-11-05'));
  send(initialized);
  for (let b = 0; b < BATCHES; b++) send(batch(b));
  const reply = await ask(call(input));
  server.stdin.end();
  await new Promise((resolve) => server.on('exit', resolve));
  return reply.result;
}

const input = await readStdin();
const transport = process.env.WIRECHECK_TRANSPORT;
const result = await (transport === 'http' ? overHttp : transport === 'sse' ? overSse : overStdio)(input);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
