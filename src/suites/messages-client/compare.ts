import { type CompareOptions, describeDifference, differences } from '../../protocol/compare.js';
import type { Message } from '../../protocol/messages/index.js';

/**
 * The fields of the buffered response shape that the spec names ("Message response
 * (buffered)", "Content blocks"), for the expected side of a comparison: the real API adds
 * fields that a client may pass through or drop, so only these are asked of the client.
 */
export function bufferedShape(message: Message): Message {
  return {
    id: message.id,
    type: message.type,
    role: message.role,
    model: message.model,
    content: message.content.map((block) =>
      block.type === 'text'
        ? { type: block.type, text: block.text }
        : { type: block.type, id: block.id, name: block.name, input: block.input },
    ),
    stop_reason: message.stop_reason,
    stop_sequence: message.stop_sequence,
    usage: { input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens },
  };
}

/**
 * The first place where two JSON values differ, as `path: expected X, got Y`; undefined
 * when they are equal. Every key counts (extra ones too); object key order does not, array
 * order does. A thin use of src/protocol/compare.ts kept for the suites that ask for one
 * difference (agent, tool-client); new code uses `differences` and reports them all.
 */
export function firstDifference(
  expected: unknown,
  actual: unknown,
  options: Pick<CompareOptions, 'extra'> = {},
): string | undefined {
  const [first] = differences(expected, actual, { extra: options.extra ?? 'report', limit: 1 });
  return first === undefined ? undefined : describeDifference(first);
}
