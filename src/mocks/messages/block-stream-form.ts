import { citationsOf, inputJsonOf } from '../../protocol/messages/index.js';

/**
 * How one content block of a reply is streamed: the block its content_block_start
 * carries, the text its deltas carry, and the deltas sent after those (a thinking block's
 * signature, a text block's citations). The spec describes text and tool_use blocks; for
 * them and for the others a scenario may return (the real API's `thinking`,
 * `redacted_thinking`, `server_tool_use`...) the mock streams what the real API streams:
 * text as text_delta then each citation as citations_delta, thinking text as
 * thinking_delta then its signature as signature_delta, a tool input as input_json_delta,
 * and any other block whole in its start event with no delta, so a reader that joins
 * deltas onto the start rebuilds it.
 */
export interface BlockStreamForm {
  readonly start: Record<string, unknown>;
  /** The text cut into deltas, and the delta's type and field as JSON (`"text_delta","text"`). */
  readonly deltas?: { readonly payload: string; readonly typeAndField: string } | undefined;
  /** Deltas sent after the others, in order. */
  readonly after?: readonly Record<string, unknown>[] | undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The stream form of a block (any object with a string `type`, as a scenario returned it). */
export function blockStreamForm(block: Record<string, unknown>): BlockStreamForm {
  if (block.type === 'text' && typeof block.text === 'string') {
    // Other extra fields of the block travel in the start event; citations as eventsOfMessage sends them.
    const citations = citationsOf(block);
    return {
      start: { ...block, text: '', ...(citations && { citations: [] }) },
      deltas: { payload: block.text, typeAndField: '"text_delta","text"' },
      after: citations?.map((citation) => ({ type: 'citations_delta', citation })),
    };
  }
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const signature = typeof block.signature === 'string' ? block.signature : undefined;
    return {
      start: { ...block, thinking: '', ...(signature !== undefined && { signature: '' }) },
      deltas: { payload: block.thinking, typeAndField: '"thinking_delta","thinking"' },
      after: signature ? [{ type: 'signature_delta', signature }] : undefined,
    };
  }
  if (isPlainObject(block.input)) {
    const { input, ...rest } = block;
    return {
      start: { ...rest, input: {} },
      deltas: { payload: inputJsonOf(input), typeAndField: '"input_json_delta","partial_json"' },
    };
  }
  return { start: block };
}
