import type { MessageRequest, Turn } from '../../protocol/messages/index.js';

/** Scenario context: 0-based count of assistant turns in the request's messages. */
export function turnIndexOf(request: MessageRequest): number {
  let n = 0;
  for (const turn of request.messages) if (turn.role === 'assistant') n++;
  return n;
}

export function lastUserTurn(request: MessageRequest): Turn | undefined {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const turn = request.messages[i]!;
    if (turn.role === 'user') return turn;
  }
  return undefined;
}

/** The text blocks of a turn, joined by newlines (a string turn is its own text). */
export function textOf(turn: Turn | undefined): string {
  if (!turn) return '';
  if (typeof turn.content === 'string') return turn.content;
  const texts: string[] = [];
  for (const block of turn.content) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  }
  return texts.join('\n');
}

export interface ToolResultSeen {
  toolUseId: string;
  content: string;
  isError: boolean;
}

/** The tool_result blocks of a turn, their content flattened to text. */
export function toolResultsOf(turn: Turn | undefined): ToolResultSeen[] {
  if (!turn || typeof turn.content === 'string') return [];
  const results: ToolResultSeen[] = [];
  for (const block of turn.content) {
    if (block.type !== 'tool_result') continue;
    const b = block as { tool_use_id: string; content?: unknown; is_error?: boolean };
    results.push({ toolUseId: b.tool_use_id, content: flatten(b.content), isError: b.is_error === true });
  }
  return results;
}

function flatten(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (c && typeof c === 'object' && typeof c.text === 'string' ? c.text : ''))
    .join('');
}

/** Names of the tools the request offers (a typed tool may have none, an MCP toolset for one). */
export function toolNamesOf(request: MessageRequest): string[] {
  return (request.tools ?? []).flatMap((t) => (t.name === undefined ? [] : [t.name]));
}

/** A rough, deterministic token count (about four characters per token), never below 1. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** input_tokens of a request, estimated from its messages, system prompt and tools. */
export function inputTokensOf(request: MessageRequest): number {
  return Math.max(
    1,
    Math.ceil(jsonLength([request.system ?? '', request.messages, request.tools ?? []]) / 4),
  );
}

/**
 * `JSON.stringify(value).length` for a parsed JSON value, without recursion: a valid
 * request may nest thousands of levels deep in free-form fields (tool input, extra keys),
 * where JSON.stringify throws "Maximum call stack size exceeded".
 */
export function jsonLength(value: unknown): number {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object') {
      length += (JSON.stringify(v) ?? 'null').length;
    } else if (Array.isArray(v)) {
      length += 1 + Math.max(1, v.length);
      for (const item of v) pending.push(item === undefined ? null : item);
    } else {
      const entries = Object.entries(v).filter(([, item]) => item !== undefined);
      length += 1 + Math.max(1, entries.length);
      for (const [key, item] of entries) {
        length += JSON.stringify(key).length + 1;
        pending.push(item);
      }
    }
  }
  return length;
}
