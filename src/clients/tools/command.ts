import { z } from 'zod';
import { parseHeaderOptions } from '../../protocol/header-option.js';
import { defaultRevisionFor, isProtocolRevision, PROTOCOL_REVISIONS } from '../../protocol/mcp/index.js';
import { ToolClient } from './client.js';
import { resolveToolServerAddress, transportForAddress } from './target.js';

/** The flags of `wirecheck tool-client`, as commander hands them over. */
export interface ToolClientCommandFlags {
  stdio?: string;
  sse?: string;
  http?: string;
  tool?: string;
  arguments?: string;
  list?: boolean;
  timeoutMs?: string;
  /** `--protocol`: the MCP revision offered in initialize (default 2024-11-05). */
  protocol?: string;
  /** `--header 'Name: value'` (repeatable): sent with every request to an SSE or Streamable HTTP server. */
  header?: string[];
}

export interface ToolClientCommandIo {
  /** Read only when neither `--tool` nor `--list` is given (a person at a terminal is not kept waiting). */
  readStdin(): Promise<string>;
  /** WIRECHECK_TRANSPORT, WIRECHECK_SERVER_CMD, WIRECHECK_SERVER_URL; also the stdio server's environment. */
  env: Record<string, string | undefined>;
  flags?: ToolClientCommandFlags;
  signal?: AbortSignal;
}

export interface ToolClientCommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** The tool-client contract's stdin: `{"tool": "<name>", "arguments": {...}}`, arguments optional. */
export const ToolClientInput = z.looseObject({
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
export type ToolClientInput = z.infer<typeof ToolClientInput>;

function failed(exitCode: number, message: string): ToolClientCommandResult {
  return {
    stdout: `${JSON.stringify({ error: { message } })}\n`,
    stderr: `tool-client: ${message}\n`,
    exitCode,
  };
}

async function whatToDo(io: ToolClientCommandIo): Promise<{ list: true } | ToolClientInput | string> {
  const flags = io.flags ?? {};
  if (flags.list === true) {
    return flags.tool === undefined ? { list: true } : '--list and --tool exclude each other';
  }
  if (flags.tool !== undefined) {
    if (flags.tool === '') return '--tool must name a tool';
    if (flags.arguments === undefined) return { tool: flags.tool };
    const args = parseJson(flags.arguments);
    const parsed = z.record(z.string(), z.unknown()).safeParse(args);
    if (!parsed.success) return `--arguments must be a JSON object, got ${flags.arguments}`;
    return { tool: flags.tool, arguments: parsed.data };
  }
  if (flags.arguments !== undefined) return '--arguments needs --tool';
  const text = await io.readStdin();
  const parsed = ToolClientInput.safeParse(parseJson(text));
  if (!parsed.success) {
    return `stdin must hold {"tool": "<name>", "arguments": {...}} (arguments optional), got ${JSON.stringify(text.slice(0, 200))}`;
  }
  return parsed.data;
}

/** `--header`s as the transport sends them, or what is wrong with them (stdio has no HTTP). */
function headersOf(
  given: readonly string[] | undefined,
  transport: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> | undefined | string {
  if (given === undefined || given.length === 0) return undefined;
  if (transport === 'stdio') return '--header goes with an SSE or Streamable HTTP server: stdio has no HTTP';
  const parsed = parseHeaderOptions(given, env);
  return typeof parsed === 'string' ? parsed : Object.fromEntries(parsed.map((h) => [h.name, h.value]));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The `tool-client` target command (TARGETS.md): connect to the server named by the
 * environment (or `--stdio` / `--sse` / `--http`), initialize, call the tool named on stdin (or by
 * `--tool`), print the call result JSON on stdout and exit 0 (a result with `isError: true`
 * is still a result). A protocol or transport failure exits 1 with `{"error":{"message"}}`
 * on stdout; a bad setting or input exits 2, with the same shape. `--list` prints the
 * tools/list result instead. The server is always closed (for stdio: stopped) before returning.
 */
export async function runToolClientCommand(io: ToolClientCommandIo): Promise<ToolClientCommandResult> {
  const flags = io.flags ?? {};
  const target = resolveToolServerAddress(flags, io.env);
  if (typeof target === 'string') return failed(EXIT_USAGE, target);
  let timeoutMs: number | undefined;
  if (flags.timeoutMs !== undefined) {
    timeoutMs = Number(flags.timeoutMs);
    if (!/^\s*\d+\s*$/.test(flags.timeoutMs) || timeoutMs < 1) {
      return failed(
        EXIT_USAGE,
        `--timeout-ms takes a whole number of milliseconds >= 1, got ${flags.timeoutMs}`,
      );
    }
  }
  if (flags.protocol !== undefined && !isProtocolRevision(flags.protocol)) {
    return failed(
      EXIT_USAGE,
      `--protocol ${JSON.stringify(flags.protocol)} is not an MCP revision this client knows (known: ${PROTOCOL_REVISIONS.join(', ')})`,
    );
  }
  const headers = headersOf(flags.header, target.transport, io.env);
  if (typeof headers === 'string') return failed(EXIT_USAGE, headers);
  const todo = await whatToDo(io);
  if (typeof todo === 'string') return failed(EXIT_USAGE, todo);

  const warnings: string[] = [];
  const client = new ToolClient(
    transportForAddress(target, {
      env: io.env,
      ...(timeoutMs === undefined ? {} : { endpointTimeoutMs: timeoutMs }),
      ...(headers === undefined ? {} : { headers }),
    }),
    {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      // Unless told, the transport's first revision: 2024-11-05 has no Streamable HTTP.
      protocolVersion: flags.protocol ?? defaultRevisionFor(target.transport),
      onWarning: (w) => warnings.push(w),
    },
  );
  const options = io.signal === undefined ? {} : { signal: io.signal };
  try {
    await client.connect(options);
    const result =
      'list' in todo
        ? await client.listTools(options)
        : await client.callTool(todo.tool, todo.arguments, options);
    return { stdout: `${JSON.stringify(result)}\n`, stderr: logLines(warnings), exitCode: 0 };
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    const result = failed(EXIT_FAILURE, error.message);
    return { ...result, stderr: logLines(warnings) + result.stderr };
  } finally {
    await client.close();
  }
}

function logLines(warnings: readonly string[]): string {
  return warnings.map((w) => `tool-client: warning: ${w}\n`).join('');
}
