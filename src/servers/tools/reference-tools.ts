import { arch, loadavg, platform } from 'node:os';
import { type CallToolResult, textResult } from '../../protocol/mcp/index.js';
import { defineTool, type McpToolDefinition, type ToolContext } from './tool.js';

/** The longest wait the `slow` tool accepts; longer asks are cut to it. */
export const SLOW_MAX_MS = 60_000;
export const SLOW_DEFAULT_MS = 1_000;

/**
 * The diagnostic tool of the spec ("Reference tool behaviours"): an optional boolean
 * argument, default false, and one text item with status and process information, as
 * `key: value` lines so a person and a regex can both read it.
 */
export const diagnosticTool = defineTool({
  name: 'diagnostic',
  description: 'Report the server status and process information as one text item.',
  inputSchema: {
    type: 'object',
    properties: {
      verbose: {
        type: 'boolean',
        description: 'Add details: platform, memory breakdown, CPU time, load, session and tool names.',
        default: false,
      },
    },
  },
  handler: (args, context) => textResult(diagnosticText(args.verbose === true, context)),
});

export function diagnosticText(verbose: boolean, { server, session }: ToolContext): string {
  const memory = process.memoryUsage();
  const lines = [
    'status: ok',
    `pid: ${process.pid}`,
    `uptime_s: ${process.uptime().toFixed(3)}`,
    `node: ${process.version}`,
    `memory_rss_bytes: ${memory.rss}`,
    `transport: ${session.transport}`,
    `open_sessions: ${server.sessionCount()}`,
    `in_flight_calls: ${server.inFlightCount()}`,
  ];
  if (verbose) {
    const cpu = process.cpuUsage();
    lines.push(
      `server: ${server.serverInfo.name} ${server.serverInfo.version}`,
      `session_id: ${session.id}`,
      `platform: ${platform()} ${arch()}`,
      `ppid: ${process.ppid}`,
      `memory_heap_used_bytes: ${memory.heapUsed}`,
      `memory_heap_total_bytes: ${memory.heapTotal}`,
      `memory_external_bytes: ${memory.external}`,
      `cpu_user_us: ${cpu.user}`,
      `cpu_system_us: ${cpu.system}`,
      `load_average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      `tools: ${server.toolNames().join(', ')}`,
    );
  }
  return lines.join('\n');
}

/** Returns its text unchanged: the cheapest round trip, for interop and throughput checks. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Return the given text unchanged, as one text item.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to return.' } },
    required: ['text'],
  },
  handler: (args) => textResult(args.text as string),
});

/**
 * Waits, then answers: the tool for cancellation and de-allocation checks. It holds one
 * timer, released at once when the call is cancelled or its session closes.
 */
export const slowTool = defineTool({
  name: 'slow',
  description: `Wait the given number of milliseconds (at most ${SLOW_MAX_MS}), then answer; stops early when cancelled.`,
  inputSchema: {
    type: 'object',
    properties: {
      ms: {
        type: 'integer',
        description: `How long to wait, in milliseconds (0 to ${SLOW_MAX_MS}; longer is cut to ${SLOW_MAX_MS}).`,
        default: SLOW_DEFAULT_MS,
      },
    },
  },
  handler: (args, { signal }) => {
    const ms = Math.min(Math.max(args.ms as number, 0), SLOW_MAX_MS);
    return new Promise<CallToolResult>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(textResult(`waited ${ms} ms`));
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  },
});

/** Always fails: a tool error is a result with `isError: true` (MCP), not a JSON-RPC error. */
export const failTool = defineTool({
  name: 'fail',
  description: 'Always fail: answer a result with isError true carrying the given message.',
  inputSchema: {
    type: 'object',
    properties: {
      message: {
        type: 'string',
        description: 'The error text to return.',
        default: 'this tool always fails',
      },
    },
  },
  handler: (args) => textResult(args.message as string, true),
});

export const addTool = defineTool({
  name: 'add',
  description: 'Add two numbers and return the sum as text.',
  inputSchema: {
    type: 'object',
    properties: {
      a: { type: 'number', description: 'The first addend.' },
      b: { type: 'number', description: 'The second addend.' },
    },
    required: ['a', 'b'],
  },
  handler: (args) => textResult(String((args.a as number) + (args.b as number))),
});

/** The tools of `wirecheck serve tools`, in the order `tools/list` shows them. */
export const REFERENCE_TOOLS: readonly McpToolDefinition[] = [
  diagnosticTool,
  echoTool,
  slowTool,
  failTool,
  addTool,
];
