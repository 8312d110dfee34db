// A tool client built on the official @modelcontextprotocol/sdk Client, as a tool-client
// target command: the adapter a user would write (its body is mcp-sdk-adapter.mjs, shared with
// v2's). FACTS: the SDK asks for its newest protocol version in initialize (not 2024-11-05) and
// refuses an absolute endpoint on another origin; docs/tool-client-compatibility.md records
// what it passes and fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { main } from './mcp-sdk-adapter.mjs';

await main({
  Client,
  StdioClientTransport,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  name: 'wirecheck-sdk-adapter',
});
