import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  cutAtFirstBad,
  firstBadElement,
  safeParseCut,
  safeParseFirstIssue,
} from '../../src/protocol/first-bad-element.js';

const Item = z.object({ n: z.number() });

test('the first bad element is found without looking past it', () => {
  const looked: unknown[] = [];
  const watched = z.unknown().refine((v) => {
    looked.push(v);
    return v !== 'bad';
  });
  expect(firstBadElement(['a', 'bad', 'c', 'bad'], watched)).toBe(1);
  expect(looked).toEqual(['a', 'bad']);
  expect(firstBadElement(['a', 'b'], watched)).toBe(-1);
});

test('an array is cut after its first bad element, which is kept and named', () => {
  const value = { name: 'x', items: [{ n: 1 }, { n: 'two' }, { n: 3 }, 4] };
  const { judged, note } = cutAtFirstBad(value, 'items', Item, 'item');
  expect(judged).toEqual({ name: 'x', items: [{ n: 1 }, { n: 'two' }] });
  expect(note).toBe(' (items.1 is the first bad item of 4; the items after it were not judged)');
  // The value given is left as it was.
  expect(value.items).toHaveLength(4);
});

test('nothing is cut when no element is bad, only the last is, or the field is no array', () => {
  for (const value of [
    { items: [{ n: 1 }, { n: 2 }] },
    { items: [{ n: 1 }, 'last'] },
    { items: 'not an array' },
    { other: [1] },
    null,
    'text',
  ]) {
    const { judged, note } = cutAtFirstBad(value, 'items', Item);
    expect(judged).toBe(value);
    expect(note).toBe('');
  }
});

test('a million bad elements are judged at once, the first of them named', () => {
  const value = { name: 'x', items: [{ n: 1 }, ...Array.from({ length: 1_000_000 }, () => 0)] };
  // Judged whole, the same value took seconds and a gigabyte of heap. The elements judged are
  // counted, not timed: a count holds on a loaded machine, where a bound in ms does not.
  let judged = 0;
  const Counted = z.preprocess((v) => {
    judged++;
    return v;
  }, Item);
  const CountedHolder = z.object({ name: z.string(), items: z.array(Counted) });
  const { parsed, note } = safeParseCut(CountedHolder, value, 'items', Counted, 'item');
  expect(judged, 'elements judged').toBeLessThanOrEqual(10);
  expect(parsed.success).toBe(false);
  expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['items.1']);
  expect(note).toBe(' (items.1 is the first bad item of 1000001; the items after it were not judged)');
});

test("the verdict is the schema's: an element schema stricter than it cuts nothing away", () => {
  const Loose = z.object({ items: z.array(z.number()) });
  const { parsed, note } = safeParseCut(Loose, { items: [1.5, 2] }, 'items', z.number().int());
  expect(parsed).toMatchObject({ success: true, data: { items: [1.5, 2] } });
  expect(note).toBe('');
  // Its failures are the whole value's too.
  const failed = safeParseCut(Loose, { items: [1.5, 'a', 'b'] }, 'items', z.number().int());
  expect(failed.parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['items.1', 'items.2']);
  expect(failed.note).toBe('');
});

test('a value that passes is parsed as the schema reads it', () => {
  const Read = z.object({ items: z.array(z.number()).transform((a) => a.length) });
  const { parsed, note } = safeParseCut(Read, { items: [1, 2, 3] }, 'items', z.number());
  expect(parsed).toMatchObject({ success: true, data: { items: 3 } });
  expect(note).toBe('');
});

describe('safeParseFirstIssue', () => {
  const List = z.looseObject({ items: z.array(z.looseObject({ type: z.string() })) });

  test('describes a million bad elements by the first, quickly', () => {
    const parsed = safeParseFirstIssue(List, { items: [{ type: 'ok' }, ...Array(1_000_000).fill(0)] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([['items', 1]]);
  });

  test('gives the verdict and the value safeParse gives', () => {
    for (const value of [
      { items: [] },
      { items: [{ type: 'a', extra: 1 }] },
      { items: [{}] },
      null,
      { items: 'x' },
    ]) {
      const first = safeParseFirstIssue(List, value);
      const whole = List.safeParse(value);
      expect(first.success).toBe(whole.success);
      expect(first.data).toEqual(whole.data);
    }
  });
});
