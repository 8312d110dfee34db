import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  CAPTURE_KEEP_BYTES,
  capturedOf,
  createOutputCapture,
  decodeCaptured,
  isComplete,
  OUTPUT_LIMIT_BYTES,
} from '../../../src/protocol/bash/index.js';

describe('bounded capture of one output stream', () => {
  test('keeps only the first bytes of a large stream and counts all of them', () => {
    const capture = createOutputCapture();
    const chunk = new Uint8Array(65536).fill(0x61);
    for (let i = 0; i < 200; i++) capture.push(chunk);
    const result = capture.result();
    expect(result.head.length).toBe(CAPTURE_KEEP_BYTES);
    expect(result.totalBytes).toBe(200 * 65536);
    expect(isComplete(result)).toBe(false);
  });

  test('the kept bytes do not hold on to the chunks they came from', () => {
    const capture = createOutputCapture(10);
    const chunk = new Uint8Array(1000);
    capture.push(chunk);
    expect(capture.result().head.buffer.byteLength).toBeLessThan(1000);
  });

  test('how the stream is chunked does not change what is kept', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat(300)),
        fc.nat(200),
        (bytes, cuts, keep) => {
          const capture = createOutputCapture(keep);
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          let at = 0;
          for (const p of [...points, bytes.length]) {
            capture.push(bytes.subarray(at, p));
            at = p;
          }
          const result = capture.result();
          expect([...result.head]).toEqual([...bytes.subarray(0, keep)]);
          expect(result.totalBytes).toBe(bytes.length);
        },
      ),
    );
  });

  test('the whole of a complete stream is decoded, bad bytes becoming U+FFFD', () => {
    expect(decodeCaptured(capturedOf(new Uint8Array([0x61, 0xff, 0x62])))).toBe('a\uFFFDb');
  });

  test('a byte order mark is output and is kept', () => {
    expect(decodeCaptured(capturedOf('\uFEFFx'))).toBe('\uFEFFx');
  });

  test('a prefix that ends inside a character holds the partial character back', () => {
    const bytes = Buffer.from(`${'a'.repeat(OUTPUT_LIMIT_BYTES + 2)}😀😀`, 'utf8');
    const captured = capturedOf(bytes);
    expect(isComplete(captured)).toBe(false);
    expect(decodeCaptured(captured)).toBe('a'.repeat(OUTPUT_LIMIT_BYTES + 2));
  });
});
