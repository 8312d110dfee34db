import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ToolMessage } from '../../src/fixtures/index.js';
import { createLineRecorder, withoutCutCharacter } from '../../src/recording/tools/lines.js';

const utf8 = new TextEncoder();
const bytesOf = (s: string) => utf8.encode(s).length;

/** The longest start of `line` within `max` UTF-8 bytes that ends between characters. */
function startWithin(line: string, max: number): string {
  let out = '';
  for (const ch of line) {
    if (bytesOf(out + ch) > max) break;
    out += ch;
  }
  return out;
}

/** Feeds `text` cut at `cuts` through one scratch buffer the recorder must not rely on. */
function record(text: string, cuts: number[], max: number, end: boolean): ToolMessage[] {
  const pushed: ToolMessage[] = [];
  const recorder = createLineRecorder('server->client', (m) => pushed.push(m), max);
  const bytes = utf8.encode(text);
  const scratch = Buffer.alloc(bytes.length);
  let from = 0;
  for (const at of [...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (at <= from) continue;
    scratch.set(bytes.subarray(from, at), 0);
    recorder.feed(scratch.subarray(0, at - from), at);
    scratch.fill(0xff);
    from = at;
  }
  if (end) recorder.end(bytes.length);
  return pushed;
}

const character = fc.constantFrom('a', ' ', '"', 'é', '€', '😀');
const line = fc.array(character, { maxLength: 24 }).map((cs) => cs.join(''));

describe('the stdio recorder’s lines (record tools --stdio)', () => {
  test('property: each line is recorded whole up to the limit, and past it by its start at a character boundary, marked cut, however the bytes are chunked', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.nat(400), { maxLength: 40 }),
        fc.integer({ min: 1, max: 40 }),
        (lines, lastEnded, cuts, max) => {
          const text = lines.join('\n') + (lastEnded ? '\n' : '');
          const recorded = record(text, cuts, max, true);
          const expected = lines.flatMap((l, i) => {
            const last = i === lines.length - 1;
            const unterminated = last && !lastEnded;
            const cut = bytesOf(l) > max;
            if (last && !lastEnded && l === '') return [];
            if (l.trim() === '' && !unterminated && !cut) return [];
            return [
              {
                text: cut ? startWithin(l, max) : l,
                ...(unterminated && { unterminated: true }),
                ...(cut && { cut: true }),
              },
            ];
          });
          expect(recorded.map(({ atMs: _, direction: __, ...m }) => m)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a line without end holds at most the limit: the rest is counted out, not kept', () => {
    const pushed: ToolMessage[] = [];
    const recorder = createLineRecorder('server->client', (m) => pushed.push(m), 1024);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 1024; i++) recorder.feed(chunk, i);
    recorder.feed(Buffer.from('\n{"jsonrpc":"2.0","method":"after"}\n'), 2000);
    expect(pushed.map((m) => [m.text.length, m.cut])).toEqual([
      [1024, true],
      ['{"jsonrpc":"2.0","method":"after"}'.length, undefined],
    ]);
  });

  test('withoutCutCharacter drops only a character the end cuts into', () => {
    const euro = utf8.encode('a€');
    expect([...withoutCutCharacter(euro)]).toEqual([...euro]);
    expect([...withoutCutCharacter(euro.subarray(0, 3))]).toEqual([0x61]);
    expect([...withoutCutCharacter(euro.subarray(0, 2))]).toEqual([0x61]);
    const emoji = utf8.encode('😀');
    expect(withoutCutCharacter(emoji.subarray(0, 3)).length).toBe(0);
    expect(withoutCutCharacter(emoji).length).toBe(4);
  });
});
