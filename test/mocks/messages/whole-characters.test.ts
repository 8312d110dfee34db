import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createMockMessagesApp, scriptedModel } from '../../../src/mocks/messages/index.js';
import { messageBatches } from '../../../src/mocks/messages/source-frames.js';
import { inputJsonOf, type Message, splitAt } from '../../../src/protocol/messages/index.js';
import { arbTextUnit, SPECIAL_CHARACTERS } from '../../../src/suites/arbitraries/text.js';
import { decodeChunks, KEY, messagesBody, SAMPLE } from './helpers.js';

/** Well-formed text dense in characters outside the BMP (two UTF-16 units each). */
const arbAstralText = fc.string({
  unit: fc.oneof(
    {
      arbitrary: fc.constantFrom(...SPECIAL_CHARACTERS.fourBytes, ...SPECIAL_CHARACTERS.clusters),
      weight: 3,
    },
    { arbitrary: arbTextUnit, weight: 2 },
  ),
  minLength: 1,
  maxLength: 60,
});

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** No lone surrogate: in a `u` pattern a pair is one code point, a half on its own is category Cs. */
const wellFormed = (s: string) => !/\p{Cs}/u.test(s);

/** The fragments of each block's deltas, in order (text_delta text, input_json_delta partial_json). */
function fragmentsOf(frames: readonly { data: string }[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const f of frames) {
    const event = JSON.parse(f.data);
    if (event.type !== 'content_block_delta') continue;
    const piece: unknown = event.delta.text ?? event.delta.partial_json;
    if (typeof piece !== 'string') continue;
    out.set(event.index, [...(out.get(event.index) ?? []), piece]);
  }
  return out;
}

/** Every fragment is whole characters: none starts with the low half of a pair or ends with the high half. */
function expectWholeCharacters(fragments: readonly string[]): void {
  for (const piece of fragments) {
    expect(isLow(piece.charCodeAt(0)), JSON.stringify(piece)).toBe(false);
    expect(isHigh(piece.charCodeAt(piece.length - 1)), JSON.stringify(piece)).toBe(false);
    expect(wellFormed(piece), JSON.stringify(piece)).toBe(true);
  }
}

/** What the whole block streams: its text, or its input's JSON text. */
const payloadOf = (block: Message['content'][number]) =>
  block.type === 'text' ? block.text : inputJsonOf(block.input);

describe('streamed deltas never cut a surrogate pair', () => {
  test('an offset inside a pair cuts before it; next to a lone half it cuts where it says', () => {
    expect(splitAt('a👋b', [2])).toEqual(['a', '👋b']);
    expect(splitAt('a👋b', [1, 2, 3])).toEqual(['a', '👋', 'b']);
    expect(splitAt('a\udc4bb\ud83d', [1, 3])).toEqual(['a', '\udc4bb', '\ud83d']);
  });

  test('any split offsets: each fragment is whole characters, and the fragments join to the payload', () => {
    const arbCase = fc.tuple(arbAstralText, arbAstralText).chain(([text, command]) => {
      const message: Message = {
        ...SAMPLE,
        content: [
          { type: 'text', text },
          { type: 'tool_use', id: 'toolu_x', name: 'bash', input: { command } },
        ],
      };
      const cuts = (payload: string) =>
        fc.array(fc.integer({ min: -2, max: payload.length + 2 }), { maxLength: payload.length + 2 });
      return fc.tuple(fc.constant(message), cuts(text), cuts(inputJsonOf({ command })));
    });
    fc.assert(
      fc.property(arbCase, fc.boolean(), ([message, textCuts, jsonCuts], sorted) => {
        // Sorted offsets take the no-copy path of the mock; others the general one.
        const splits = sorted
          ? [[...new Set(textCuts)].sort((a, b) => a - b), [...new Set(jsonCuts)].sort((a, b) => a - b)]
          : [textCuts, jsonCuts];
        const batches = [...messageBatches(message, splits, '\n', 7)].map((b) => {
          const bytes = Buffer.from(b.bytes);
          b.reuse();
          return bytes;
        });
        const fragments = fragmentsOf(decodeChunks(batches).frames);
        message.content.forEach((block, index) => {
          const pieces = fragments.get(index) ?? [];
          expectWholeCharacters(pieces);
          expect(pieces.join('')).toBe(payloadOf(block));
          // The protocol's canonical cut agrees with the mock's bytes.
          expect(splitAt(payloadOf(block), splits[index])).toEqual(pieces);
        });
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  test('the scripted models (text every 12 units, tool input every 10, the max_tokens cut) send whole characters', async () => {
    const apps = {
      echo: createMockMessagesApp({ scenario: scriptedModel('echo') }).app,
      bash: createMockMessagesApp({ scenario: scriptedModel('bash') }).app,
    };
    const arbRequest = fc.record({
      model: fc.constantFrom('echo' as const, 'bash' as const),
      text: arbAstralText,
      maxTokens: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(1024)),
      stream: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(arbRequest, async ({ model, text, maxTokens, stream }) => {
        const prompt = model === 'bash' ? `run: echo x${text}` : `x${text}`;
        const res = await apps[model].inject({
          method: 'POST',
          url: '/v1/messages',
          headers: KEY,
          payload: messagesBody(prompt, {
            max_tokens: maxTokens,
            stream,
            ...(model === 'bash' && { tools: [{ type: 'bash_20250124', name: 'bash' }] }),
          }),
        });
        expect(res.statusCode).toBe(200);
        const decoded = stream ? decodeChunks([res.body]) : undefined;
        const message: Message = decoded ? decoded.message! : JSON.parse(res.body);
        expect(message, decoded?.error?.message).toBeDefined();
        const fragments = decoded ? fragmentsOf(decoded.frames) : undefined;
        message.content.forEach((block, index) => {
          const payload = payloadOf(block);
          expect(wellFormed(payload), JSON.stringify(payload)).toBe(true);
          if (!fragments) return;
          const pieces = fragments.get(index) ?? [];
          expectWholeCharacters(pieces);
          expect(pieces.join('')).toBe(payload);
        });
      }),
      { numRuns: 200, seed: 11 },
    );
    await Promise.all(Object.values(apps).map((app) => app.close()));
  });
});
