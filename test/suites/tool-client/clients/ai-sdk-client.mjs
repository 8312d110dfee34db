// A tool client built on @ai-sdk/mcp (Vercel's AI SDK MCP client, its own implementation,
// not the official SDK), as a tool-client target command: the adapter a user would write.
// docs/tool-client-compatibility.md records what it passes and fails.
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

let client;
// The library throws some transport errors outside any promise: report them as the contract says.
process.on('uncaughtException', async (e) => {
  process.stdout.write(
    `${JSON.stringify({ error: { message: e instanceof Error ? e.message : String(e) } })}\n`,
  );
  process.exit(1);
});
try {
  const input = JSON.parse(await readStdin());
  const transport =
    process.env.WIRECHECK_TRANSPORT === 'stdio'
      ? new Experimental_StdioMCPTransport({
          command: 'sh',
          args: ['-c', process.env.WIRECHECK_SERVER_CMD ?? ''],
        })
      : {
          type: process.env.WIRECHECK_TRANSPORT === 'http' ? 'http' : 'sse',
          url: process.env.WIRECHECK_SERVER_URL ?? '',
        };
  let closed;
  const gone = new Promise((_, reject) => {
    closed = reject;
  });
  client = await createMCPClient({ transport, onUncaughtError: (e) => closed(e) });
  const params =
    input.arguments === undefined ? { name: input.tool } : { name: input.tool, arguments: input.arguments };
  const result = await Promise.race([client.callTool(params), gone]);
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
