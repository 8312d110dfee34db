// A Streamable HTTP client (plain Node, no wirecheck code) whose session is right, but which,
// between notifications/initialized and tools/call, sends GET after GET naming a session that
// does not exist (each answered 404), as a reconnect loop gone wrong would: FLOOD_GETS of them
// (default 11,000, more entries than a mock's journal keeps), then the call. Over http only.
import http from 'node:http';

const GETS = Number(process.env.FLOOD_GETS ?? 11_000);
/** GETs in flight at once. */
const PARALLEL = 20;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** The JSON-RPC messages of a POST's answer: a JSON body or an event stream's data. */
async function messagesOf(response) {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return text.trim() === '' ? [] : [JSON.parse(text)].flat();
  }
  return text
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

async function main() {
  const input = await readStdin();
  if (process.env.WIRECHECK_TRANSPORT !== 'http') {
    throw new Error(`this client speaks Streamable HTTP only, not ${process.env.WIRECHECK_TRANSPORT}`);
  }
  const url = new URL(process.env.WIRECHECK_SERVER_URL);
  let session;
  const post = async (message) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session === undefined ? {} : { 'mcp-session-id': session }),
      },
      body: JSON.stringify(message),
    });
    session ??= response.headers.get('mcp-session-id') ?? undefined;
    if (response.status >= 300) throw new Error(`POST ${message.method} answered HTTP ${response.status}`);
    return messagesOf(response);
  };
  await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'flood-get', version: '1' },
    },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });

  const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
  const get = () =>
    new Promise((resolve) => {
      const request = http.request(url, {
        method: 'GET',
        agent,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'no-such-session' },
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', resolve);
        response.on('error', resolve);
      });
      request.on('error', resolve);
      request.end();
    });
  let sent = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (sent < GETS) {
        sent++;
        await get();
      }
    }),
  );
  agent.destroy();

  const answers = await post({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: input.tool, arguments: input.arguments ?? {} },
  });
  const answer = answers.find((m) => m.id === 2);
  if (answer === undefined) throw new Error('no answer to tools/call');
  if (answer.error !== undefined) throw new Error(answer.error.message);
  process.stdout.write(`${JSON.stringify(answer.result)}\n`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stdout.write(`${JSON.stringify({ error: { message: String(e?.message ?? e) } })}\n`);
    process.exit(1);
  },
);
