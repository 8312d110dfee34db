import { expect, test } from 'vitest';
import { boundEvidence, EVIDENCE_LIMITS } from '../../src/harness/evidence-bounds.js';
import type { Evidence } from '../../src/harness/results.js';

const line = '\u0001'.repeat(16 * 1024);

test('a picture of many long messages keeps a window around the mark, the last, and clipped texts', () => {
  const messages = Array.from({ length: 1500 }, (_, n) => ({
    atMs: n,
    session: 'stdio',
    direction: 'received' as const,
    text: `${n}:${line}`,
  }));
  const bounded = boundEvidence({ kind: 'jsonrpc', title: 'the case', messages, mark: 1400 });
  if (bounded.kind !== 'jsonrpc') throw new Error('kind changed');
  expect(bounded.messages).toHaveLength(EVIDENCE_LIMITS.items);
  expect(bounded.messages[bounded.mark ?? -1]?.atMs).toBe(1400);
  expect(bounded.messages.at(-1)?.atMs).toBe(1499);
  expect(bounded.title).toBe(`the case (${EVIDENCE_LIMITS.items} of 1500 kept)`);
  for (const m of bounded.messages) expect(m.text.length).toBeLessThan(EVIDENCE_LIMITS.itemChars + 40);
  // JSON escapes each control character to six: whole, this picture alone would be 147 MB.
  expect(JSON.stringify(bounded).length).toBeLessThan(32 * 1024 * 1024);
});

test('a picture within the bounds is kept as it is; a mark on the last item stays on it', () => {
  const frames = Array.from({ length: 3 }, (_, n) => ({ atMs: n, event: 'ping', data: '{}' }));
  const small: Evidence = { kind: 'frames', title: 't', frames, mark: 2 };
  expect(boundEvidence(small)).toEqual(small);
  const many = Array.from({ length: 3000 }, (_, n) => ({ atMs: n, data: 'x' }));
  const bounded = boundEvidence({ kind: 'frames', title: 't', frames: many, mark: 2999 });
  if (bounded.kind !== 'frames') throw new Error('kind changed');
  expect(bounded.frames[bounded.mark ?? -1]?.atMs).toBe(2999);
  const fromStart = boundEvidence({ kind: 'frames', title: 't', frames: many });
  if (fromStart.kind !== 'frames') throw new Error('kind changed');
  expect(fromStart.frames[0]?.atMs).toBe(0);
  expect(fromStart.mark).toBeUndefined();
});
