// A stdio tool server (MCP 2024-11-05) that sends values the suite's check code must read
// without throwing: valid ones (boolean subschemas, an enum of 150,000 values, 150,000 tools,
// `"error": null` beside every result) and malformed ones (tools the Tool schema refuses, an
// error code that is an object).
//
//   node hostile-values.mjs --mode subschemas|big-enum|many-tools|malformed-tools|only-malformed|error-null|object-code
import readline from 'node:readline';
import { TOOLS } from './base.mjs';

const argv = process.argv.slice(2);
const mode = argv[argv.indexOf('--mode') + 1];

const ECHO = TOOLS.find((t) => t.name === 'echo');

/** Tools the Tool schema refuses: an inputSchema that is null, a property schema that is a string. */
const MALFORMED = [
  { name: 'info', description: 'x', inputSchema: null },
  {
    name: 'strprop',
    description: 'x',
    inputSchema: { type: 'object', properties: { x: 'string' }, required: ['x'] },
  },
  {
    name: 'status',
    description: { toString: 1 },
    inputSchema: { type: 'object', properties: { verbose: { type: 'boolean', description: 'more' } } },
  },
];

function tools() {
  switch (mode) {
    case 'subschemas':
      return [
        {
          name: 'any_items',
          description: 'Items and a property of any value (boolean subschemas).',
          inputSchema: {
            type: 'object',
            properties: {
              xs: { type: 'array', description: 'anything', items: true, minItems: 1 },
              o: { type: 'object', description: 'anything in a', properties: { a: true }, required: ['a'] },
            },
            required: ['xs', 'o'],
          },
        },
        {
          name: 'never',
          description: 'No value fits its argument.',
          inputSchema: {
            type: 'object',
            properties: {
              o: { type: 'object', description: 'd', properties: { a: false }, required: ['a'] },
            },
            required: ['o'],
          },
        },
        {
          name: 'nullish',
          description: 'A nested schema that is null.',
          inputSchema: {
            type: 'object',
            properties: { o: { type: 'object', description: 'd', properties: { a: null } } },
          },
        },
      ];
    case 'big-enum':
      return [
        {
          name: 'pick',
          description: 'Takes one of 150,000 values.',
          inputSchema: {
            type: 'object',
            properties: {
              v: { type: 'integer', description: 'd', enum: Array.from({ length: 150_000 }, (_, i) => i) },
            },
            required: ['v'],
          },
        },
      ];
    case 'many-tools':
      return Array.from({ length: 150_000 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: 'object' } }));
    case 'malformed-tools':
      return [ECHO, ...MALFORMED];
    case 'only-malformed':
      return MALFORMED;
    default:
      return [ECHO];
  }
}

const LISTED = tools();

const ok = (text, isError = false) => ({
  content: [{ type: 'text', text }],
  ...(isError ? { isError: true } : {}),
});

/** The reply's members beside jsonrpc and id. */
function answer(msg) {
  switch (msg.method) {
    case 'initialize':
      return {
        result: {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {} },
          serverInfo: { name: 'hostile-values', version: '1' },
        },
      };
    case 'ping':
      return { result: {} };
    case 'tools/list':
      return { result: { tools: LISTED } };
    case 'tools/call': {
      const name = msg.params?.name;
      if (!LISTED.some((t) => t.name === name)) return { result: ok(`Unknown tool: ${name}`, true) };
      const args = msg.params?.arguments ?? {};
      if (name === 'echo' && typeof args.message !== 'string')
        return { result: ok('message is required', true) };
      return { result: ok('ok') };
    }
    default:
      // error-null: even an unknown method is answered with a result (a failure of the server).
      return mode === 'error-null'
        ? { result: {} }
        : { error: { code: -32601, message: `Method not found: ${msg.method}` } };
  }
}

const out = (m) => {
  // error-null: `"error": null` beside every result.
  const sent = mode === 'error-null' && 'result' in m ? { ...m, error: null } : m;
  process.stdout.write(`${JSON.stringify(sent)}\n`);
};

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    // object-code: a parse error whose code is an object with no primitive value.
    const code = mode === 'object-code' ? { toString: 1 } : -32700;
    return out({ jsonrpc: '2.0', id: null, error: { code, message: 'Parse error' } });
  }
  if (typeof msg !== 'object' || msg === null || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
    const id = typeof msg?.id === 'number' ? msg.id : null;
    return out({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } });
  }
  if (msg.id === undefined) return;
  out({ jsonrpc: '2.0', id: msg.id, ...answer(msg) });
});
process.stdin.on('end', () => process.exit(0));
