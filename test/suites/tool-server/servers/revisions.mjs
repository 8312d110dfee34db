// A stdio tool server of every MCP revision, for the --protocol tests:
//   node revisions.mjs [--flaw NAME] [--flood N]
// It negotiates as every revision says (the version asked for when it knows it, else its
// latest), answers JSON-RPC batches, lists a tool with an outputSchema whose results carry
// conforming structuredContent, and answers invalid arguments as -32602 up to 2025-06-18 and
// as an isError result from 2025-11-25 on. Each flaw breaks one revision rule:
//   stuck-version        answers 2024-11-05 to every known version (and its latest to an unknown one)
//   echo-unknown         answers an unknown version with that same version
//   unknown-error        answers an unknown version with the error MCP's own example shows (-32602,
//                        data.supported and data.requested): meets the must, warns the should
//   unknown-bare-error   answers an unknown version with -32602 and nothing saying what it supports
//   no-batch             answers a batch with one Invalid Request
//   structured-mismatch  structuredContent lacks a required property of the outputSchema
//   bad-tool-name        lists a tool whose name has a space
//   invalid-args-error   answers invalid arguments with -32602 under 2025-11-25 too
import { createInterface } from 'node:readline';

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const LATEST = REVISIONS.at(-1);
const argv = process.argv.slice(2);
const flaw = argv.includes('--flaw') ? argv[argv.indexOf('--flaw') + 1] : undefined;
/** --flood N: that many log notifications after the initialize reply (chatty, within the protocol). */
const flood = argv.includes('--flood') ? Number(argv[argv.indexOf('--flood') + 1]) : 0;

const TOOLS = [
  {
    name: 'echo',
    description: 'Returns its message.',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'text to send back' } },
      required: ['message'],
    },
  },
  {
    name: flaw === 'bad-tool-name' ? 'get weather' : 'get_weather',
    title: 'Weather',
    description: 'A fixed weather report.',
    inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'a city' } } },
    outputSchema: {
      type: 'object',
      properties: {
        temperature: { type: 'number' },
        conditions: { type: 'string', enum: ['sunny', 'cloudy'] },
      },
      required: ['temperature', 'conditions'],
    },
    annotations: { readOnlyHint: true },
  },
];

let revision = '2024-11-05';

function call(id, params) {
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (name === 'echo') {
    if (typeof args.message !== 'string') {
      const message = 'Invalid arguments for tool echo: message must be a string';
      return revision === '2025-11-25' && flaw !== 'invalid-args-error'
        ? { id, result: { content: [{ type: 'text', text: message }], isError: true } }
        : { id, error: { code: -32602, message } };
    }
    return { id, result: { content: [{ type: 'text', text: args.message }] } };
  }
  if (name === TOOLS[1].name) {
    const weather =
      flaw === 'structured-mismatch' ? { temperature: 21 } : { temperature: 21, conditions: 'sunny' };
    return {
      id,
      result: { content: [{ type: 'text', text: JSON.stringify(weather) }], structuredContent: weather },
    };
  }
  return { id, error: { code: -32602, message: `Unknown tool: ${name}` } };
}

function answer(msg) {
  if (typeof msg !== 'object' || msg === null || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
    return { id: msg?.id ?? null, error: { code: -32600, message: 'Invalid Request' } };
  }
  if (!('id' in msg)) return undefined;
  const { id } = msg;
  switch (msg.method) {
    case 'initialize': {
      const asked = msg.params?.protocolVersion;
      const known = REVISIONS.includes(asked);
      if (!known && flaw === 'unknown-error') {
        const data = { supported: REVISIONS, requested: asked };
        return { id, error: { code: -32602, message: 'Unsupported protocol version', data } };
      }
      if (!known && flaw === 'unknown-bare-error') {
        return { id, error: { code: -32602, message: 'Unsupported protocol version' } };
      }
      revision = known
        ? flaw === 'stuck-version'
          ? '2024-11-05'
          : asked
        : flaw === 'echo-unknown'
          ? asked
          : LATEST;
      return {
        id,
        result: {
          protocolVersion: revision,
          capabilities: { tools: {} },
          serverInfo: { name: 'wirecheck-revisions-test-server', version: '1.0.0' },
        },
      };
    }
    case 'ping':
      return { id, result: {} };
    case 'tools/list':
      return { id, result: { tools: TOOLS } };
    case 'tools/call':
      return call(id, msg.params);
    default:
      return { id, error: { code: -32601, message: `Method not found: ${msg.method}` } };
  }
}

const write = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
const wrap = (r) => (r === undefined ? undefined : { jsonrpc: '2.0', ...r });

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (Array.isArray(msg)) {
    if (flaw === 'no-batch' || msg.length === 0) {
      write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
      return;
    }
    const replies = msg.map((m) => wrap(answer(m))).filter((r) => r !== undefined);
    if (replies.length > 0) write(replies);
    return;
  }
  const reply = wrap(answer(msg));
  if (reply !== undefined) write(reply);
  if (msg?.method === 'initialize' && flood > 0) {
    const note = (n) =>
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: `step ${n}` },
      });
    process.stdout.write(`${Array.from({ length: flood }, (_, n) => note(n)).join('\n')}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
