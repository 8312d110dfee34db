import { show } from '../../harness/check.js';
import { conversationError } from '../../mocks/messages/validate-request.js';
import type { MessageRequest } from '../../protocol/messages/index.js';

/**
 * Why a request body breaks a rule the spec states for every client, or undefined: the
 * fields it marks required, turns of `user`/`assistant` with string or block content (each
 * tool_use with a string `id`, each tool_result with a string `tool_use_id`), and
 * the conversation rules of "Content blocks" (tool_use only in assistant turns,
 * tool_result only in user turns) and of the follow-up turn (each tool_result answers a
 * tool_use of the turn right before; every tool_use is answered in the next turn).
 */
export function specRequestError(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return 'the body is not a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string') return `model: expected a string, got ${show(b.model)}`;
  if (typeof b.max_tokens !== 'number' || !Number.isInteger(b.max_tokens)) {
    return `max_tokens: expected an integer, got ${show(b.max_tokens)}`;
  }
  if (!Array.isArray(b.messages)) return `messages: expected an array, got ${show(b.messages)}`;
  for (const [i, turn] of b.messages.entries()) {
    const t = (turn ?? {}) as { role?: unknown; content?: unknown };
    if (t.role !== 'user' && t.role !== 'assistant')
      return `messages.${i}.role: expected "user" or "assistant", got ${show(t.role)}`;
    if (typeof t.content !== 'string' && !Array.isArray(t.content)) {
      return `messages.${i}.content: expected a string or an array of blocks, got ${show(t.content)}`;
    }
    if (Array.isArray(t.content)) {
      for (const [j, block] of t.content.entries()) {
        const b = (block ?? {}) as { type?: unknown; id?: unknown; tool_use_id?: unknown };
        if (typeof b.type !== 'string')
          return `messages.${i}.content.${j}.type: expected a string, got ${show(b.type)}`;
        // conversationError writes the ids into its messages: one that is no string must not reach it.
        if (b.type === 'tool_use' && typeof b.id !== 'string')
          return `messages.${i}.content.${j}.id: expected a string (the tool_use's id), got ${show(b.id)}`;
        if (b.type === 'tool_result' && typeof b.tool_use_id !== 'string') {
          return `messages.${i}.content.${j}.tool_use_id: expected a string (the id of the tool_use answered), got ${show(b.tool_use_id)}`;
        }
      }
    }
  }
  if (b.tools !== undefined && !Array.isArray(b.tools))
    return `tools: expected an array, got ${show(b.tools)}`;
  return conversationError(b as unknown as MessageRequest);
}
