// A tool client built on v2 of the official SDK (@modelcontextprotocol/client), as a tool-client
// target command: the adapter a user would write, as mcp-sdk-client.mjs for v1.
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { main } from './mcp-sdk-adapter.mjs';

await main({
  Client,
  StdioClientTransport,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  name: 'wirecheck-sdk-v2-adapter',
});
