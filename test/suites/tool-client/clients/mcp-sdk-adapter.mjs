// The body of the official SDK's tool-client adapters (mcp-sdk-client.mjs for v1,
// mcp-sdk-v2-client.mjs for v2): both versions' Client and transports take the same calls.
async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads {"tool","arguments"} on stdin, calls the tool over WIRECHECK_TRANSPORT and prints the
 * result (exit 0), or {"error":{"message"}} (exit 1).
 * @param {{ Client: any, StdioClientTransport: any, SSEClientTransport: any, StreamableHTTPClientTransport: any, name: string }} sdk
 */
export async function main({
  Client,
  StdioClientTransport,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  name,
}) {
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
    client = new Client({ name, version: '0.0.1' });
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
}
