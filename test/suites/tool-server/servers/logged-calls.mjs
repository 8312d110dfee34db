// A stdio tool server (MCP 2024-11-05) that writes down every tools/call it is sent, listed
// tool or not, as one JSON line {name, args} in the file WIRECHECK_TEST_CALL_LOG: the tests of
// the call gate read it to see that a refused call never reached the server.
//
//   node logged-calls.mjs [--list-probe-name]
//
// It lists read_file (readOnlyHint: true) and delete_file (destructiveHint: true); with
// --list-probe-name also a tool named as the suite's unknown-tool probe.
import { appendFileSync } from 'node:fs';
import readline from 'node:readline';

const PROBE_NAME = 'wirecheck-no-such-tool-7f3a';

const pathSchema = {
  type: 'object',
  properties: { path: { type: 'string', description: 'a file' } },
  required: ['path'],
};
const TOOLS = [
  {
    name: 'read_file',
    description: 'Reads a file.',
    inputSchema: pathSchema,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'delete_file',
    description: 'Deletes a file.',
    inputSchema: pathSchema,
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
  ...(process.argv.includes('--list-probe-name')
    ? [{ name: PROBE_NAME, description: 'A tool of this server.', inputSchema: { type: 'object' } }]
    : []),
];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const text = (t, isError = false) => ({
  content: [{ type: 'text', text: t }],
  ...(isError ? { isError } : {}),
});

function handle(msg) {
  if (typeof msg !== 'object' || msg === null || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
    return 'id' in (msg ?? {}) && !('result' in msg) && !('error' in msg)
      ? { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32600, message: 'Invalid Request' } }
      : undefined;
  }
  if (!('id' in msg)) return undefined;
  const { id } = msg;
  switch (msg.method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: msg.params?.protocolVersion ?? '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 'logged-calls', version: '1.0.0' },
        },
      };
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} };
    case 'tools/list':
      return { jsonrpc: '2.0', id, result: { tools: TOOLS } };
    case 'tools/call': {
      const name = msg.params?.name;
      if (process.env.WIRECHECK_TEST_CALL_LOG) {
        appendFileSync(
          process.env.WIRECHECK_TEST_CALL_LOG,
          `${JSON.stringify({ name, args: msg.params?.arguments })}\n`,
        );
      }
      if (!TOOLS.some((t) => t.name === name)) {
        return { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${name}` } };
      }
      return { jsonrpc: '2.0', id, result: text(`${name} done`) };
    }
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${msg.method}` } };
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (Array.isArray(msg)) {
    const out = msg.map(handle).filter((r) => r !== undefined);
    if (out.length > 0) send(out);
    else if (msg.length === 0)
      send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    return;
  }
  const reply = handle(msg);
  if (reply !== undefined) send(reply);
});
lines.on('close', () => process.exit(0));
