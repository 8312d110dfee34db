import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createLineSplitter, type InputLine } from '../../../src/protocol/bash/index.js';

function split(chunks: (string | Uint8Array)[], max?: number): InputLine[] {
  const splitter = createLineSplitter(max);
  const lines: InputLine[] = [];
  for (const c of chunks) lines.push(...splitter.push(typeof c === 'string' ? Buffer.from(c, 'utf8') : c));
  lines.push(...splitter.end());
  return lines;
}
const texts = (...t: string[]) => t.map((text) => ({ kind: 'text', text }));

describe('the runner input is split into lines', () => {
  test('LF ends a line; a CR before it is dropped', () => {
    expect(split(['a\nb\r\nc\n'])).toEqual(texts('a', 'b', 'c'));
  });
  test('an unterminated last line is still a line', () => {
    expect(split(['a\nb'])).toEqual(texts('a', 'b'));
  });
  test('an empty line is a line (it gets its own result)', () => {
    expect(split(['a\n\nb\n'])).toEqual(texts('a', '', 'b'));
  });
  test('a CRLF split across chunks is one line terminator', () => {
    expect(split(['a\r', '\nb\n'])).toEqual(texts('a', 'b'));
  });
  test('a character split across chunks is decoded whole', () => {
    const bytes = Buffer.from('é\n', 'utf8');
    expect(split([bytes.subarray(0, 1), bytes.subarray(1)])).toEqual(texts('é'));
  });
  test('how the input is chunked does not change the lines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme' }).map((s) => s.replace(/[\r\n]/g, ''))),
        fc.array(fc.nat()),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(at, p));
            at = p;
          }
          expect(split(chunks)).toEqual(texts(...lines));
        },
      ),
    );
  });
  test('a line over the maximum is reported too long and the next line is intact', () => {
    expect(split(['x'.repeat(50), 'x'.repeat(50), '\nok\n'], 64)).toEqual([
      { kind: 'too-long', bytes: 100, maxBytes: 64 },
      { kind: 'text', text: 'ok' },
    ]);
  });
  test('a line that is not UTF-8 is reported as such', () => {
    expect(split([new Uint8Array([0x7b, 0xff, 0x7d, 0x0a])])).toEqual([{ kind: 'not-utf8' }]);
  });
  test('a 1 MB line is one line', () => {
    const big = 'y'.repeat(1 << 20);
    expect(split([big.slice(0, 1000), `${big.slice(1000)}\n`])).toEqual(texts(big));
  });
});
