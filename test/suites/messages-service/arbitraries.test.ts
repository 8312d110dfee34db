import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MessageRequest, type Turn } from '../../../src/protocol/messages/index.js';
import {
  invalidExamples,
  invalidRequestBody,
  MALFORMED_RULES,
  SEMANTIC_RULES,
  validRequestBody,
} from '../../../src/suites/messages-service/index.js';

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

  test('every malformed body is not JSON or breaks the request schema; every semantic one keeps the schema', () => {
    fc.assert(
      fc.property(invalidRequestBody('m', MALFORMED_RULES), ({ raw }) => {
        let json: unknown;
        try {
          json = JSON.parse(raw);
        } catch {
          return;
        }
        expect(MessageRequest.safeParse(json).success).toBe(false);
      }),
      { seed: 42, numRuns: 300 },
    );
    fc.assert(
      fc.property(invalidRequestBody('m', SEMANTIC_RULES), ({ label, raw }) => {
        const parsed = MessageRequest.safeParse(JSON.parse(raw));
        // Schema-level refusals of the protocol (min(1), positive) stand for the real API's.
        if (label === 'messages empty' || label === 'max_tokens below 1') expect(parsed.success).toBe(false);
        else expect(conversationProblem(parsed.data!)).toBeDefined();
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  test('labels are the rules, stable across values; every rule has an example and is generated', () => {
    for (const rules of [MALFORMED_RULES, SEMANTIC_RULES]) {
      const labels = new Set(
        fc.sample(invalidRequestBody('m', rules), { seed: 7, numRuns: 400 }).map((c) => c.label),
      );
      expect([...labels].sort()).toEqual(rules.map((r) => r.label).sort());
      expect(invalidExamples('m', rules).map((c) => c.label)).toEqual(rules.map((r) => r.label));
    }
    const details = fc
      .sample(invalidRequestBody('m', MALFORMED_RULES), { seed: 7, numRuns: 50 })
      .map((c) => c.detail);
    expect(details.some((d) => /^max_tokens not an integer \(/.test(d))).toBe(true);
  });
});
