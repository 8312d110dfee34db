// A stdio tool server built with the official MCP SDK (McpServer) whose tool declares an
// outputSchema, for the --protocol tests of structured output (MCP 2025-06-18 and later).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'wirecheck-sdk-structured-fixture', version: '1.0.0' });
server.registerTool(
  'get_weather',
  {
    description: 'A fixed weather report.',
    inputSchema: { city: z.string().describe('a city').optional() },
    outputSchema: { temperature: z.number(), conditions: z.enum(['sunny', 'cloudy']) },
    annotations: { readOnlyHint: true },
  },
  async () => {
    const weather = { temperature: 21, conditions: 'sunny' };
    return { content: [{ type: 'text', text: JSON.stringify(weather) }], structuredContent: weather };
  },
);
server.registerTool(
  'echo',
  { description: 'Returns its message.', inputSchema: { message: z.string().describe('text to send back') } },
  async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);
await server.connect(new StdioServerTransport());
