import {
  ChildProcessTransport,
  SseClientTransport,
  StreamableHttpClientTransport,
  type Transport,
} from '../../transports/index.js';

/** Where the tool server is: a command to spawn (stdio), a stream URL (SSE) or an endpoint URL (Streamable HTTP). */
export type ToolServerAddress =
  | { readonly transport: 'stdio'; readonly command: string }
  | { readonly transport: 'sse' | 'http'; readonly url: string };

export interface ToolServerAddressFlags {
  readonly stdio?: string;
  readonly sse?: string;
  readonly http?: string;
}

/**
 * The target from flags (`--stdio CMD` / `--sse URL` / `--http URL`), else from the
 * environment of the tool-client contract (TARGETS.md): WIRECHECK_TRANSPORT `stdio` | `sse`
 * | `http` with WIRECHECK_SERVER_CMD or WIRECHECK_SERVER_URL. Without WIRECHECK_TRANSPORT,
 * the one of the two variables that is set decides (a URL means SSE, the spec's transport).
 * Returns a sentence for the user when neither works.
 */
export function resolveToolServerAddress(
  flags: ToolServerAddressFlags,
  env: Readonly<Record<string, string | undefined>>,
): ToolServerAddress | string {
  const given = (['stdio', 'sse', 'http'] as const).filter((f) => flags[f] !== undefined);
  if (given.length > 1) return `${given.map((f) => `--${f}`).join(' and ')} exclude each other`;
  if (flags.stdio !== undefined) return stdio(flags.stdio, '--stdio');
  if (flags.sse !== undefined) return sse(flags.sse, '--sse');
  if (flags.http !== undefined) return http(flags.http, '--http');
  const transport = env.WIRECHECK_TRANSPORT?.trim();
  const command = env.WIRECHECK_SERVER_CMD;
  const url = env.WIRECHECK_SERVER_URL;
  if (transport === 'stdio') return stdio(command ?? '', 'WIRECHECK_SERVER_CMD');
  if (transport === 'sse') return sse(url ?? '', 'WIRECHECK_SERVER_URL');
  if (transport === 'http') return http(url ?? '', 'WIRECHECK_SERVER_URL');
  if (transport !== undefined && transport !== '') {
    return `WIRECHECK_TRANSPORT must be stdio, sse or http, got ${JSON.stringify(transport)}`;
  }
  if (command && !url) return stdio(command, 'WIRECHECK_SERVER_CMD');
  if (url && !command) return sse(url, 'WIRECHECK_SERVER_URL');
  return 'no tool server given: pass --stdio CMD, --sse URL or --http URL, or set WIRECHECK_TRANSPORT (stdio|sse|http) with WIRECHECK_SERVER_CMD or WIRECHECK_SERVER_URL';
}

function stdio(command: string, from: string): ToolServerAddress | string {
  if (command.trim() === '') return `${from} must name the command that starts the server`;
  return { transport: 'stdio', command };
}

function httpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url.trim()) && URL.canParse(url.trim());
}

function sse(url: string, from: string): ToolServerAddress | string {
  if (!httpUrl(url)) {
    return `${from} must be the http(s) URL of the server's event stream, got ${JSON.stringify(url)}`;
  }
  return { transport: 'sse', url: url.trim() };
}

function http(url: string, from: string): ToolServerAddress | string {
  if (!httpUrl(url)) {
    return `${from} must be the http(s) URL of the server's MCP endpoint (Streamable HTTP), got ${JSON.stringify(url)}`;
  }
  return { transport: 'http', url: url.trim() };
}

export interface TargetTransportOptions {
  /** For stdio: each chunk the server writes on stderr. */
  readonly onStderr?: (chunk: Buffer) => void;
  /** For SSE: bound on the wait for the `endpoint` event. */
  readonly endpointTimeoutMs?: number;
  /** For SSE and Streamable HTTP: sent with every request (to the stream's origin only, over SSE). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export function transportForAddress(
  target: ToolServerAddress,
  options: TargetTransportOptions = {},
): Transport {
  if (target.transport === 'stdio') {
    return new ChildProcessTransport(target.command, {
      ...(options.onStderr === undefined ? {} : { onStderr: options.onStderr }),
      ...(options.env === undefined ? {} : { env: options.env }),
    });
  }
  const headers = options.headers === undefined ? {} : { headers: options.headers };
  if (target.transport === 'http') return new StreamableHttpClientTransport(target.url, headers);
  return new SseClientTransport(target.url, {
    ...(options.endpointTimeoutMs === undefined ? {} : { endpointTimeoutMs: options.endpointTimeoutMs }),
    ...headers,
  });
}
