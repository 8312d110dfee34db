import { describe, expect, test } from 'vitest';
import {
  assembleOutput,
  isBlankOutput,
  OUTPUT_LIMIT_BYTES,
  STDERR_SEPARATOR,
  truncateOutput,
  utf8Prefix,
} from '../../../src/protocol/bash/index.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('Runner contract 4: output assembly', () => {
  test('stdout alone is the output', () => {
    expect(assembleOutput('out\n', '')).toBe('out\n');
  });
  test('stderr after a non-empty stdout is preceded by the separator line with a line break before and after', () => {
    expect(assembleOutput('out\n', 'err\n')).toBe(`out\n\n${STDERR_SEPARATOR}\nerr\n`);
  });
  test('stderr alone has no separator', () => {
    expect(assembleOutput('', 'err\n')).toBe('err\n');
  });
  test('both empty is empty', () => {
    expect(assembleOutput('', '')).toBe('');
  });
});

describe('a cut never splits a UTF-8 character', () => {
  test('a 2-byte character across the limit is left out whole', () => {
    const bytes = utf8(`x${'é'.repeat(10)}`); // 1 + 20 bytes; byte 4 is the second byte of an é
    expect(text(utf8Prefix(bytes, 4))).toBe('xé');
    expect(utf8Prefix(bytes, 4)).toHaveLength(3);
  });
  test('a 4-byte character across the limit is left out whole, at every cut inside it', () => {
    const bytes = utf8('ab😀c');
    for (const limit of [3, 4, 5]) expect(text(utf8Prefix(bytes, limit))).toBe('ab');
    expect(text(utf8Prefix(bytes, 6))).toBe('ab😀');
  });
  test('a cut on a character boundary keeps the limit exactly', () => {
    expect(utf8Prefix(utf8('abcdef'), 4)).toHaveLength(4);
  });
  test('stray continuation bytes (not UTF-8) do not shrink the prefix by more than one character', () => {
    const bytes = new Uint8Array(100).fill(0x80);
    expect(utf8Prefix(bytes, 50)).toHaveLength(50);
  });
  test('input within the limit is returned whole', () => {
    expect(utf8Prefix(utf8('abc'), 3)).toHaveLength(3);
  });
});

describe('Runner contract 5: truncateOutput', () => {
  test('text of exactly the limit is not truncated', () => {
    const t = 'a'.repeat(OUTPUT_LIMIT_BYTES);
    expect(truncateOutput(t)).toEqual({ text: t, truncated: false });
  });
  test('one byte over the limit is cut to the limit and the 64 KB note is appended', () => {
    const out = truncateOutput('a'.repeat(OUTPUT_LIMIT_BYTES + 1));
    expect(out.truncated).toBe(true);
    expect(out.text.startsWith('a'.repeat(OUTPUT_LIMIT_BYTES))).toBe(true);
    expect(out.text.slice(OUTPUT_LIMIT_BYTES)).toMatch(/^\n\[output truncated: the 64 KB limit/);
  });
  test('a total size larger than the kept text counts', () => {
    expect(truncateOutput('abc', 10, 11).truncated).toBe(true);
  });
});

describe('Runner contract 6: blank output', () => {
  test.each([[''], ['\n'], ['  \t\n']])('%j is blank', (t) => expect(isBlankOutput(t)).toBe(true));
  test('text with a visible character is not blank', () => expect(isBlankOutput(' x ')).toBe(false));
});
