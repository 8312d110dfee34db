// A tool server built with Effect's MCP server (`McpServer` of @effect/ai, an MCP implementation
// of its own on Effect's RPC, not the SDK's), for the interop tests:
//   node effect-mcp.mjs                    (stdio)
//   node effect-mcp.mjs --port N           (HTTP on /mcp)
// Its stdin and stdout are given to `layerStdio` as an Effect stream and sink of the process's
// own streams (the job @effect/platform-node's NodeStream and NodeSink do).
import * as http from 'node:http';
import { McpServer, Tool, Toolkit } from '@effect/ai';
import { HttpLayerRouter } from '@effect/platform';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { Effect, Layer, Schema, Sink, Stream } from 'effect';

const Echo = Tool.make('echo', {
  description: 'Returns its message.',
  parameters: { message: Schema.String.annotations({ description: 'text to send back' }) },
  success: Schema.String,
}).annotate(Tool.Readonly, true);
const Add = Tool.make('add', {
  description: 'Adds two numbers.',
  parameters: {
    a: Schema.Number.annotations({ description: 'first addend' }),
    b: Schema.Number.annotations({ description: 'second addend' }),
  },
  success: Schema.String,
}).annotate(Tool.Readonly, true);
const tools = Toolkit.make(Echo, Add);
const handlers = tools.toLayer({
  echo: ({ message }) => Effect.succeed(message),
  add: ({ a, b }) => Effect.succeed(String(a + b)),
});

const name = 'wirecheck-effect-fixture';
const version = '1.0.0';
const i = process.argv.indexOf('--port');
process.on('SIGTERM', () => process.exit(0));

if (i < 0) {
  // Effect's sink runs an effect per chunk: the write, resumed once the chunk is flushed.
  const write = (chunk) => Effect.async((resume) => process.stdout.write(chunk, () => resume(Effect.void)));
  const stdio = McpServer.layerStdio({
    name,
    version,
    stdin: Stream.fromAsyncIterable(process.stdin, (error) => error),
    stdout: Sink.forEach(write),
  });
  const server = McpServer.toolkit(tools).pipe(Layer.provide(handlers), Layer.provide(stdio));
  // The server ends (interrupted) when stdin does.
  await Effect.runPromiseExit(Layer.launch(server));
} else {
  // Effect's web handler of the router, served by node:http (what @effect/platform-node's
  // server does), bound to 127.0.0.1.
  const app = McpServer.toolkit(tools).pipe(
    Layer.provide(handlers),
    Layer.provide(McpServer.layerHttpRouter({ name, version, path: '/mcp' })),
  );
  const { handler } = HttpLayerRouter.toWebHandler(app, { disableLogger: true });
  http
    .createServer(createRequestListener((request) => handler(request)))
    .listen(Number(process.argv[i + 1]), '127.0.0.1');
}
