/**
 * Messages objects in one canonical form, so that equivalent payloads compare equal (see
 * `src/protocol/compare.ts`): a documented default written out or left out, a shorthand
 * and its long form. Values that are not of the expected shape are returned unchanged, so
 * the comparison reports them as they are.
 *
 * - A turn's `content` as a string is "a single text turn": `[{type: text, text}]`.
 * - `tool_result.is_error` absent is false (real API default; the seed lists the field).
 * - `tool_result.content` as a string is one text block (real API; its shape beyond a
 *   string is "not shown" in the seed). Absent content is left absent.
 * - A request's `stream` absent is false (seed: "absent or false is buffered").
 * - A response's `stop_sequence` absent is null.
 * - A bash `tool_use` input's `restart: false` is the default left out (seed: "`true` signals
 *   that the host discards the current shell session"), as a client that reads the input
 *   into a typed model writes it back.
 */

export function normalizeTurnContent(content: unknown): unknown {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return content;
  return content.map(normalizeBlock);
}

export function normalizeBlock(block: unknown): unknown {
  if (isRecord(block) && block.type === 'tool_use' && block.name === 'bash') {
    return { ...block, input: bashInput(block.input) };
  }
  if (!isRecord(block) || block.type !== 'tool_result') return block;
  const out: Record<string, unknown> = { ...block };
  if (out.is_error === undefined) out.is_error = false;
  if (typeof out.content === 'string') out.content = [{ type: 'text', text: out.content }];
  return out;
}

export function normalizeTurn(turn: unknown): unknown {
  if (!isRecord(turn) || !('content' in turn)) return turn;
  return { ...turn, content: normalizeTurnContent(turn.content) };
}

/** A request body: turns, blocks and `stream` in canonical form. */
export function normalizeMessageRequest(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const out: Record<string, unknown> = { ...body };
  if (Array.isArray(out.messages)) out.messages = out.messages.map(normalizeTurn);
  if (out.stream === undefined) out.stream = false;
  return out;
}

/** A message in the buffered response shape: `stop_sequence` absent is null. */
export function normalizeMessageResponse(message: unknown): unknown {
  if (!isRecord(message)) return message;
  const out: Record<string, unknown> = { ...message };
  if (out.stop_sequence === undefined) out.stop_sequence = null;
  if (Array.isArray(out.content)) out.content = out.content.map(normalizeBlock);
  return out;
}

function bashInput(input: unknown): unknown {
  if (!isRecord(input) || input.restart !== false) return input;
  const { restart: _, ...rest } = input;
  return rest;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
