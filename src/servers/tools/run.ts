import { Readable, Writable } from 'node:stream';
import { requiredHeadersNote } from '../http/required-headers.js';
import { REFERENCE_TOOLS } from './reference-tools.js';
import { serveToolsOverStdio } from './stdio.js';

export interface RunToolServerOptions {
  readonly transport: 'stdio' | 'sse' | 'http';
  readonly host: string;
  /** http: the endpoint's path (default /mcp). */
  readonly path?: string;
  readonly port: number;
  readonly keepAliveMs: number;
  /** sse, http: a request without these headers is answered 401. */
  readonly requireHeaders?: Readonly<Record<string, string>>;
}

export interface RunToolServerIo {
  readonly stdin: Readable | AsyncIterable<string | Uint8Array>;
  readonly stdout: { write(chunk: string): unknown };
  log(line: string): void;
  readonly signal: AbortSignal;
}

/**
 * Run the reference tool server until `signal` aborts or, over stdio, stdin ends (then
 * in-flight calls are aborted). What `wirecheck serve tools` runs.
 */
export async function runToolServer(options: RunToolServerOptions, io: RunToolServerIo): Promise<void> {
  const tools = REFERENCE_TOOLS.map((t) => t.name).join(', ');
  if (options.transport === 'stdio') {
    const input = io.stdin instanceof Readable ? io.stdin : Readable.from(io.stdin);
    const server = await serveToolsOverStdio({ input, output: writableOf(io.stdout), log: io.log });
    io.log(`reference tool server on stdio (MCP 2024-11-05); tools: ${tools}`);
    const onAbort = () => void server.close();
    io.signal.addEventListener('abort', onAbort, { once: true });
    if (io.signal.aborted) onAbort();
    await server.closed;
    io.signal.removeEventListener('abort', onAbort);
    // Stop reading so the process can exit when stdin is still open (a signal stopped us).
    input.pause();
    if (input === process.stdin) process.stdin.destroy();
    io.log('stdin ended or stopped; in-flight calls aborted; bye');
    return;
  }
  const common = {
    host: options.host,
    port: options.port,
    keepAliveMs: options.keepAliveMs,
    log: io.log,
    ...(options.requireHeaders === undefined ? {} : { requireHeaders: options.requireHeaders }),
  };
  // Loaded here, not above: the tool-server suite starts the stdio server once per session,
  // and fastify is most of what these would add to each start.
  const server =
    options.transport === 'http'
      ? await (await import('./streamable-app.js')).startStreamableToolServer({
          ...common,
          ...(options.path === undefined ? {} : { path: options.path }),
        })
      : await (await import('./start.js')).startToolServer(common);
  io.stdout.write(`${server.url}\n`);
  const required = requiredHeadersNote(options.requireHeaders);
  io.log(
    options.transport === 'http'
      ? `reference tool server on Streamable HTTP (MCP 2025-03-26, 2025-06-18, 2025-11-25; 2024-11-05 when asked) at ${server.url}; tools: ${tools}${required}`
      : `reference tool server on SSE (MCP 2024-11-05) at ${server.url}; tools: ${tools}${required}`,
  );
  io.log('interrupt (Ctrl-C) to stop');
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  io.log('stopped');
}

/** The CLI's stdout as a Writable (it is process.stdout in production, a buffer in tests). */
function writableOf(out: { write(chunk: string): unknown }): Writable {
  if (out instanceof Writable) return out;
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      out.write(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      callback();
    },
  });
}
