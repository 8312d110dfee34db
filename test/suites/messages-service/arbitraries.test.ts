import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MessageRequest, type Turn } from '../../../src/protocol/messages/index.js';
import { invalidRequestBody, validRequestBody } from '../../../src/suites/messages-service/index.js';

function blocks(turn: Turn): { type: string; [k: string]: unknown }[] {
  return typeof turn.content === 'string' ? [] : (turn.content as { type: string }[]);
}

/** What the real API (and the spec) asks of a conversation, beyond the body schema. */
function conversationProblem(body: MessageRequest): string | undefined {
  const turns = body.messages;
  if (turns[0]?.role !== 'user' || turns.at(-1)?.role !== 'user') return 'starts and ends with a user turn';
  for (const [i, turn] of turns.entries()) {
    if (i > 0 && turns[i - 1]!.role === turn.role) return `turn ${i} repeats the role`;
    const bs = blocks(turn);
    if (bs.some((b) => b.type === 'tool_result') && turn.role !== 'user') return `tool_result in turn ${i}`;
    if (bs.some((b) => b.type === 'tool_use') && turn.role !== 'assistant') return `tool_use in turn ${i}`;
    const firstText = bs.findIndex((b) => b.type === 'text');
    if (firstText >= 0 && bs.slice(firstText).some((b) => b.type === 'tool_result')) {
      return `turn ${i}: text before a tool_result`;
    }
    const uses = bs.filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (uses.length > 0) {
      const answered = blocks(turns[i + 1]!)
        .filter((b) => b.type === 'tool_result')
        .map((b) => b.tool_use_id);
      if (JSON.stringify(answered) !== JSON.stringify(uses))
        return `turn ${i + 1} does not answer each tool_use`;
      if (!body.tools?.some((t) => t.name === 'bash')) return 'tool blocks without the tool offered';
    }
    for (const b of bs) {
      if (b.type === 'text' && !/[\p{L}\p{N}]/u.test(b.text as string)) return `blank text in turn ${i}`;
    }
  }
  return undefined;
}

describe('generated request bodies', () => {
  test('every valid body fits the request schema and the conversation rules', () => {
    fc.assert(
      fc.property(validRequestBody('m'), ({ body }) => {
        expect(MessageRequest.safeParse(JSON.parse(JSON.stringify(body))).success).toBe(true);
        expect(conversationProblem(body)).toBeUndefined();
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  test('every invalid body is not JSON, breaks the request schema, or puts a tool_result in an assistant turn', () => {
    fc.assert(
      fc.property(invalidRequestBody('m'), ({ label, raw }) => {
        let json: unknown;
        try {
          json = JSON.parse(raw);
        } catch {
          return;
        }
        const parsed = MessageRequest.safeParse(json);
        if (parsed.success) {
          expect(label).toBe('a tool_result block in an assistant turn');
          expect(conversationProblem(parsed.data)).toMatch(/^tool_result in turn 1/);
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  test('invalid bodies cover every kind of mistake', () => {
    const labels = fc.sample(invalidRequestBody('m'), { seed: 7, numRuns: 400 }).map((c) => c.label);
    for (const kind of [
      /^missing model$/,
      /^missing max_tokens$/,
      /^missing messages$/,
      /^model is /,
      /^max_tokens is /,
      /^messages is /,
      /^a turn with role /,
      /^a turn with content /,
      /^a malformed content block /,
      /^a tool_result block in an assistant turn$/,
      /^stream is /,
      /^tools is /,
      /^a body that is not JSON: /,
      /^a body that is JSON /,
    ]) {
      expect(
        labels.some((l) => kind.test(l)),
        String(kind),
      ).toBe(true);
    }
  });
});
