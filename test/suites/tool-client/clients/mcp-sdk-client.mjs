// A tool client built on the official @modelcontextprotocol/sdk Client, as a tool-client
// target command: the adapter a user would write. FACTS: the SDK asks for its newest
// protocol version in initialize (not 2024-11-05) and refuses an absolute endpoint on another
// origin; test/suites/tool-client/sdk.test.ts records what it passes and fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

let client;
try {
  const input = JSON.parse(await readStdin());
  const url = () => new URL(process.env.WIRECHECK_SERVER_URL ?? '');
  const transport =
    process.env.WIRECHECK_TRANSPORT === 'stdio'
      ? new StdioClientTransport({
          command: 'sh',
          args: ['-c', process.env.WIRECHECK_SERVER_CMD ?? ''],
          stderr: 'inherit',
        })
      : process.env.WIRECHECK_TRANSPORT === 'http'
        ? new StreamableHTTPClientTransport(url())
        : new SSEClientTransport(url());
  client = new Client({ name: 'wirecheck-sdk-adapter', version: '0.0.1' });
  // The SDK does not end the call when the transport closes underneath it: do it here.
  const closed = new Promise((_, reject) => {
    transport.onclose = () => reject(new Error('the connection to the server closed'));
  });
  await Promise.race([client.connect(transport), closed]);
  const params =
    input.arguments === undefined ? { name: input.tool } : { name: input.tool, arguments: input.arguments };
  const result = await Promise.race([client.callTool(params), closed]);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await client.close().catch(() => {});
  process.exit(0);
} catch (e) {
  process.stdout.write(
    `${JSON.stringify({ error: { message: e instanceof Error ? e.message : String(e) } })}\n`,
  );
  await client?.close().catch(() => {});
  process.exit(1);
}
