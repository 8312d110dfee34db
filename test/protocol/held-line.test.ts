import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { HELD_PART_SIZE, HeldBytes, HeldText } from '../../src/protocol/held-line.js';

const concat = (parts: readonly Uint8Array[]): Buffer => Buffer.concat(parts);

describe('HeldBytes', () => {
  test('holds what it was given, in order, however chunked and whether or not the caller reuses its buffer', () => {
    const chunk = fc.record({
      bytes: fc.oneof(
        fc.uint8Array({ maxLength: 64 }),
        fc.uint8Array({ minLength: HELD_PART_SIZE - 2, maxLength: HELD_PART_SIZE + 64 }),
      ),
      copy: fc.boolean(),
      // Buffer#slice is a view, not a copy: a Buffer the caller reuses must be copied all the same.
      buffer: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 40 }), fc.nat(20_000), (chunks, headCount) => {
        const held = new HeldBytes();
        for (const { bytes, copy, buffer } of chunks) {
          const given = buffer ? Buffer.from(bytes) : Uint8Array.from(bytes);
          held.add(given, copy);
          // A caller that said it reuses its buffer does: what was held must not change with it.
          if (copy) given.fill(0xee);
        }
        const all = concat(chunks.map((c) => c.bytes));
        expect(held.length).toBe(all.length);
        expect(Buffer.from(held.head()).equals(all)).toBe(true);
        expect(Buffer.from(held.head(headCount)).equals(all.subarray(0, headCount))).toBe(true);
        expect(held.bytes().equals(all)).toBe(true);
        expect(held.text()).toBe(Buffer.from(all).toString('utf8'));
      }),
      { numRuns: 200 },
    );
  });

  test('a line fed a byte at a time is held in parts of HELD_PART_SIZE, not an array per byte (it was 700 B of heap each)', () => {
    const held = new HeldBytes();
    const one = new Uint8Array(1);
    for (let i = 0; i < 100_000; i++) {
      one[0] = i & 0xff;
      held.add(one, true);
    }
    expect(held.length).toBe(100_000);
    expect(held.partCount).toBeLessThanOrEqual(Math.ceil(100_000 / HELD_PART_SIZE) + 1);
    expect(held.head()[99_999]).toBe(99_999 & 0xff);
    // Chunks a stream hands over (not reused) are no different after the first.
    const owned = new HeldBytes();
    for (let i = 0; i < 100_000; i++) owned.add(Uint8Array.of(i & 0xff), false);
    expect(owned.partCount).toBeLessThanOrEqual(Math.ceil(100_000 / HELD_PART_SIZE) + 2);
  });

  test('lines held one after another through clear() come out whole, each valid until the next add', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }), { maxLength: 20 }),
        (lines) => {
          const held = new HeldBytes();
          for (const pieces of lines) {
            for (const [i, piece] of pieces.entries()) held.add(Buffer.from(piece), i > 0);
            expect([...held.head()]).toEqual([...concat(pieces)]);
            held.clear();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a line that arrives whole is held as it is (no copy); clear forgets everything', () => {
    const line = Uint8Array.of(1, 2, 3);
    const held = new HeldBytes();
    held.add(line, false);
    expect(held.head().buffer).toBe(line.buffer);
    held.clear();
    expect(held.length).toBe(0);
    expect(held.head().length).toBe(0);
    expect(held.partCount).toBe(0);
  });
});

describe('HeldText', () => {
  test('holds what it was given, in order, however fragmented', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 3 }),
            fc.string({ minLength: HELD_PART_SIZE, maxLength: HELD_PART_SIZE + 10 }),
          ),
          {
            maxLength: 60,
          },
        ),
        fc.nat(10_000),
        (fragments, headCount) => {
          const held = new HeldText();
          for (const f of fragments) held.add(f);
          const all = fragments.join('');
          expect(held.length).toBe(all.length);
          expect(held.head(headCount)).toBe(all.slice(0, headCount));
          expect(held.take()).toBe(all);
          expect(held.length).toBe(0);
          expect(held.take()).toBe('');
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a line fed a character at a time holds at most HELD_PART_SIZE strings apart, plus one per part', () => {
    const held = new HeldText();
    const n = 1_000_000;
    for (let i = 0; i < n; i++) held.add(String.fromCharCode(97 + (i % 26)));
    expect(held.partCount).toBeLessThanOrEqual(Math.ceil(n / HELD_PART_SIZE) + HELD_PART_SIZE);
    const all = held.take();
    expect(all.length).toBe(n);
    expect(all.slice(0, 3)).toBe('abc');
  });
});
