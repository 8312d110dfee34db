import { expect, test } from 'vitest';
import { elisionNote } from '../../src/harness/head-tail.js';
import { firstLines } from '../../src/harness/output-lines.js';
import { clip } from '../../src/protocol/clip.js';
import { scrubCutFragments } from '../../src/recording/cut-fragments.js';

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
