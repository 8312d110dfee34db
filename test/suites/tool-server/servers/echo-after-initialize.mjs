// A flaw: answers initialize, ignores notifications, and sends every other line back unchanged
// (a relay wired back to itself): it never answers a ping, it echoes it, and then echoes
// wirecheck's answer to that "ping" as if it were its reply.
import { createInterface } from 'node:readline';

for await (const line of createInterface({ input: process.stdin })) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    continue;
  }
  if (message.method === 'initialize') {
    const result = {
      protocolVersion: message.params?.protocolVersion ?? '2024-11-05',
      capabilities: { tools: {} },
      serverInfo: { name: 'echo-after-initialize', version: '0.0.1' },
    };
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
  } else if (message.id !== undefined) {
    process.stdout.write(`${line}\n`);
  }
}
