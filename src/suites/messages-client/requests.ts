import { DEFAULT_MODEL } from '../../protocol/messages/default-model.js';
import type { Message, MessageRequest, ToolDefinition } from '../../protocol/messages/index.js';

/** The model the suite's requests name (clients such as the official SDK warn about a retiring one). */
export const MODEL = DEFAULT_MODEL;

/** The smallest request: one user turn. The reply is scripted, so its wording does not matter. */
export function plainRequest(stream: boolean): MessageRequest {
  return {
    model: MODEL,
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Say hello.' }],
    ...(stream && { stream: true }),
  };
}

/**
 * A request with everything the spec lists for a body: multi-byte text, both tool
 * definition kinds, and a follow-up turn (tool_use answered by tool_result, "Endpoints:
 * follow-up turn"). Every block is written out in full so that a client that normalizes
 * the body (string content to a text block) still sends the same conversation.
 */
export function richRequest(stream: boolean): MessageRequest {
  return {
    model: MODEL,
    max_tokens: 2048,
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Liste die Dateien auf 📂, bitte. Merci — 谢谢 👩‍💻' }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Я посмотрю.' },
          { type: 'tool_use', id: 'toolu_wc_01', name: 'bash', input: { command: 'ls -la "ßpäce dir"' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_wc_01',
            content: 'total 0\n-rw-r--r-- 1 user user 0 Nov 21 12:00 naïve.txt\n',
            is_error: false,
          },
        ],
      },
    ],
    tools: [
      { type: 'bash_20250124', name: 'bash' },
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        input_schema: {
          type: 'object',
          properties: { city: { type: 'string', description: 'City name, e.g. Zürich' } },
          required: ['city'],
        },
      },
    ],
    ...(stream && { stream: true }),
  };
}

/**
 * The plain request, offering every tool the reply will call: a reply that calls a tool
 * the request did not offer is the service's fault, and a client may refuse it (the
 * Vercel AI SDK does), so a case whose reply holds tool_use blocks offers their tools.
 */
export function requestFor(message: Message, stream: boolean): MessageRequest {
  const names = [...new Set(message.content.flatMap((b) => (b.type === 'tool_use' ? [b.name] : [])))];
  const tools = names.map(
    (name): ToolDefinition =>
      name === 'bash'
        ? { type: 'bash_20250124', name }
        : { name, description: `The ${name} tool`, input_schema: { type: 'object' } },
  );
  return { ...plainRequest(stream), ...(tools.length > 0 && { tools }) };
}
