import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Message, MessageShape } from '../../../src/protocol/messages/index.js';
import { arbMessage } from '../../../src/suites/arbitraries/messages.js';

const RUNS = { numRuns: 300, seed: 1201 };

type Mutation = (m: Record<string, unknown>) => unknown;

/** Messages as a scenario or a peer may hand them over: well formed, with blocks of new types, or broken in one field. */
const mutations: fc.Arbitrary<Mutation> = fc.constantFrom<Mutation>(
  (m) => m,
  (m) => ({ ...m, content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }, ...(m.content as [])] }),
  (m) => ({
    ...m,
    content: [...(m.content as []), { type: 'server_tool_use', id: 'srvtoolu_1', input: {} }],
  }),
  (m) => ({ ...m, content: [{ type: 'text' }] }),
  (m) => ({ ...m, content: [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: 'not an object' }] }),
  (m) => ({ ...m, content: [{ type: '' }] }),
  (m) => ({ ...m, content: [{ type: 7 }] }),
  (m) => ({ ...m, content: [{ text: 'no type' }] }),
  (m) => ({ ...m, content: 'text' }),
  (m) => ({ ...m, stop_reason: 'pause_turn' }),
  (m) => ({ ...m, stop_reason: '' }),
  (m) => ({ ...m, stop_reason: 42 }),
  (m) => ({ ...m, role: 'user' }),
  (m) => ({ ...m, id: '' }),
  (m) => ({ ...m, usage: { input_tokens: -1, output_tokens: 0 } }),
  (m) => ({ ...m, extra_field: { nested: true } }),
  (m) => {
    const { model: _dropped, ...rest } = m;
    return rest;
  },
  () => null,
);

describe('MessageShape', () => {
  test('accepts exactly the messages Message accepts, and keeps the content Message drops unknown blocks from', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(arbMessage(), mutations, (m, mutate) => {
        const value = mutate(m as unknown as Record<string, unknown>);
        const read = Message.safeParse(value);
        const shape = MessageShape.safeParse(value);
        expect(shape.success).toBe(read.success);
        if (read.success && shape.success) {
          accepted++;
          const content = (value as { content: { type: string }[] }).content;
          expect(shape.data.content).toEqual(content);
          expect(read.data.content).toEqual(
            content.filter((b) => b.type === 'text' || b.type === 'tool_use'),
          );
        } else refused++;
      }),
      RUNS,
    );
    // Both sides were seen: the property did not hold only by accepting (or refusing) everything.
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });
});
