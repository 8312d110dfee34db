import fc from 'fast-check';
import { expect, test } from 'vitest';
import { elisionNote } from '../../src/harness/head-tail.js';
import { firstLines } from '../../src/harness/output-lines.js';
import { clip } from '../../src/protocol/clip.js';
import { MIN_FRAGMENT, scrubCutFragments } from '../../src/recording/cut-fragments.js';
import { REDACTED } from '../../src/recording/redact.js';

// A secret cut in two by whatever shortened a text before it was scrubbed leaves a part at the cut.

const SECRET = 'sk-live-0123456789abcdefghijklmnopqrstuv';

test('the first part of a secret before a cut mark is redacted, in each form a cut takes', () => {
  const cuts = [
    clip(`x${SECRET}`, 20),
    `${JSON.stringify(`x${SECRET}`.slice(0, 20))}... (41 chars)`,
    firstLines(`error: ${SECRET}`, 1, 25)[0]!,
    `${`x${SECRET}`.slice(0, 20)}… (21 more chars)`,
  ];
  for (const cut of cuts) {
    const scrubbed = scrubCutFragments(cut, [SECRET]);
    expect(scrubbed).toContain('[redacted]');
    expect(scrubbed).not.toContain('sk-live');
  }
});

test('the last part of a secret after an elision note is redacted, and the first part before it', () => {
  const kept = `${`token ${SECRET}`.slice(0, 20)}${elisionNote(900)}${SECRET.slice(25)} end`;
  expect(scrubCutFragments(kept, [SECRET])).toBe(`token [redacted]${elisionNote(900)}[redacted] end`);
});

test('text at a cut that is no part of a secret, or too short a part, stays', () => {
  expect(scrubCutFragments('waiting... (3 s)', [SECRET])).toBe('waiting... (3 s)');
  expect(scrubCutFragments('key sk-... (2 chars)', [SECRET])).toBe('key sk-... (2 chars)');
  expect(scrubCutFragments('no cut here sk-live-0', [SECRET])).toBe('no cut here sk-live-0');
});

/** The parts to redact read straight from their definition: every length tried at every mark. */
function partsAtMarks(text: string, secrets: readonly string[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const mark of text.matchAll(/"?\n?\[?(?:\.\.\.|…)\]?\n?/g)) {
    const before = mark.index;
    const after = before + mark[0].length;
    let head = 0;
    let tail = 0;
    for (const s of secrets) {
      for (let k = 1; k < s.length; k++) {
        if (text.slice(before - k, before) === s.slice(0, k) && k <= before) head = Math.max(head, k);
        if (text.slice(after, after + k) === s.slice(s.length - k)) tail = Math.max(tail, k);
      }
    }
    if (head >= MIN_FRAGMENT) spans.push([before - head, before]);
    if (tail >= MIN_FRAGMENT) spans.push([after, after + tail]);
  }
  return spans;
}

test('what is redacted is every part of a secret at a mark, however many marks and secrets overlap', () => {
  const secret = fc
    .array(fc.constantFrom('a', 'b', '.', 'x'), { minLength: 1, maxLength: 12 })
    .map((c) => c.join(''));
  const marks = ['...', '…', '"...', '\n[...]\n', '.', '"', '[', ']', '\n', 'x'];
  // Texts made of the secrets' own parts, so that parts meet the marks as often as not.
  const caseOf = fc.array(secret, { minLength: 1, maxLength: 3 }).chain((secrets) => {
    const parts = secrets.flatMap((s) => [...s].flatMap((_, k) => [s.slice(0, k), s.slice(k)]).concat(s));
    const text = fc.array(fc.constantFrom(...marks, ...parts.filter(Boolean)), { maxLength: 30 });
    return fc.tuple(
      fc.constant(secrets),
      text.map((p) => p.join('')),
    );
  });
  fc.assert(
    fc.property(caseOf, ([secrets, t]) => {
      const scrubbed = scrubCutFragments(t, secrets);
      const spans = partsAtMarks(t, secrets).sort((x, y) => x[0] - y[0]);
      let expected = '';
      let at = 0;
      for (const [start, end] of spans) {
        if (end <= at) continue;
        expected += t.slice(at, Math.max(at, start)) + REDACTED;
        at = end;
      }
      expect(scrubbed).toBe(spans.length === 0 ? t : expected + t.slice(at));
    }),
    { numRuns: 2000, seed: 7 },
  );
});
