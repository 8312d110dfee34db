import { describe, expect, test } from 'vitest';
import {
  blankOutputText,
  type CapturedStream,
  capturedOf,
  createOutputCapture,
  OUTPUT_LIMIT_BYTES,
  resultContent,
  STDERR_SEPARATOR,
  timeoutText,
} from '../../../src/protocol/bash/index.js';

const none = capturedOf('');
const NOTE =
  /\n\[output truncated: the 64 KB limit \(65536 bytes\) was exceeded; (\d+) bytes of output in all\]$/;

function streamOf(pattern: string, bytes: number): CapturedStream {
  const capture = createOutputCapture();
  const chunk = Buffer.from(pattern.repeat(Math.ceil(65536 / Buffer.byteLength(pattern))), 'utf8');
  let left = bytes;
  while (left > 0) {
    const part = chunk.subarray(0, Math.min(left, chunk.length));
    capture.push(part);
    left -= part.length;
  }
  return capture.result();
}

const bodyOf = (content: string) => content.replace(NOTE, '');

describe('Runner contract 4: the result text is the assembled output', () => {
  test('stdout and stderr are joined by the separator line', () => {
    const r = resultContent({ stdout: capturedOf('out\n'), stderr: capturedOf('err\n'), exitCode: 0 });
    expect(r.content).toBe(`out\n\n${STDERR_SEPARATOR}\nerr\n`);
  });
  test('stderr alone has no separator', () => {
    const r = resultContent({ stdout: none, stderr: capturedOf('warn\n'), exitCode: 0 });
    expect(r.content).toBe('warn\n');
    expect(r.content).not.toContain(STDERR_SEPARATOR);
  });
});

describe('Runner contract 5: truncation of the assembled text', () => {
  test('exactly 65536 bytes are not truncated', () => {
    const r = resultContent({ stdout: streamOf('a', OUTPUT_LIMIT_BYTES), stderr: none, exitCode: 0 });
    expect(r.truncated).toBe(false);
    expect(r.content).toBe('a'.repeat(OUTPUT_LIMIT_BYTES));
  });
  test('65537 bytes are cut to 65536 and the 64 KB note names the total', () => {
    const r = resultContent({ stdout: streamOf('a', OUTPUT_LIMIT_BYTES + 1), stderr: none, exitCode: 0 });
    expect(r.truncated).toBe(true);
    expect(bodyOf(r.content)).toBe('a'.repeat(OUTPUT_LIMIT_BYTES));
    expect(NOTE.exec(r.content)?.[1]).toBe(String(OUTPUT_LIMIT_BYTES + 1));
  });
  test('a gigabyte of output yields the first 65536 bytes and the note with the real size', () => {
    const r = resultContent({ stdout: streamOf('z', 1 << 30), stderr: none, exitCode: 0 });
    expect(Buffer.byteLength(bodyOf(r.content))).toBe(OUTPUT_LIMIT_BYTES);
    expect(NOTE.exec(r.content)?.[1]).toBe(String(1 << 30));
  });
  test.each([
    ['a 2-byte character', 'é', 1],
    ['a 3-byte character', '€', 2],
    ['a 4-byte character', '😀', 1],
  ])('a cut inside %s backs off to the character before it, with no U+FFFD', (_name, char, lead) => {
    const stdout = streamOf('x'.repeat(lead) + char.repeat(40000), 200000);
    const r = resultContent({ stdout, stderr: none, exitCode: 0 });
    const body = bodyOf(r.content);
    expect(body).not.toContain('\uFFFD');
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(OUTPUT_LIMIT_BYTES);
    expect(Buffer.byteLength(body)).toBeGreaterThan(OUTPUT_LIMIT_BYTES - 4);
  });
  test('the limit applies to stdout, separator and stderr together', () => {
    const stdout = streamOf('o', 60000);
    const stderr = streamOf('e', 10000);
    const r = resultContent({ stdout, stderr, exitCode: 0 });
    const body = bodyOf(r.content);
    expect(Buffer.byteLength(body)).toBe(OUTPUT_LIMIT_BYTES);
    expect(body.startsWith(`${'o'.repeat(60000)}\n${STDERR_SEPARATOR}\ne`)).toBe(true);
    expect(NOTE.exec(r.content)?.[1]).toBe(String(60000 + 10000 + STDERR_SEPARATOR.length + 2));
  });
  test('output that is not UTF-8 is still cut within the limit once decoded', () => {
    const capture = createOutputCapture();
    capture.push(new Uint8Array(100000).fill(0xff));
    const r = resultContent({ stdout: capture.result(), stderr: none, exitCode: 0 });
    expect(Buffer.byteLength(bodyOf(r.content))).toBeLessThanOrEqual(OUTPUT_LIMIT_BYTES);
    expect(r.truncated).toBe(true);
  });
});

describe('Runner contract 6: blank output', () => {
  test.each([[0], [1], [137]])(
    'no output with exit code %i gives the text with that exit code',
    (exitCode) => {
      const r = resultContent({ stdout: none, stderr: none, exitCode });
      expect(r.content).toBe(blankOutputText(exitCode));
      expect(r.content).toContain(`exit code ${exitCode}`);
      expect(r.content).toMatch(/no output/);
    },
  );
  test('whitespace-only output is blank', () => {
    expect(resultContent({ stdout: capturedOf('\n'), stderr: capturedOf(' '), exitCode: 0 }).content).toBe(
      blankOutputText(0),
    );
  });
});

describe('Runner contract 7: is_error', () => {
  test.each([
    [0, false],
    [1, true],
    [2, true],
    [127, true],
    [255, true],
  ])('exit code %i gives is_error %s', (exitCode, isError) => {
    expect(resultContent({ stdout: capturedOf('x'), stderr: none, exitCode }).isError).toBe(isError);
  });
  test('stderr output with exit code 0 is not an error', () => {
    expect(resultContent({ stdout: none, stderr: capturedOf('warn'), exitCode: 0 }).isError).toBe(false);
  });
});

describe('Runner contract 3: timeout', () => {
  test('the text states the timeout in seconds and is an error', () => {
    const r = resultContent({ stdout: none, stderr: none, exitCode: 143, timedOutAfterS: 7 });
    expect(r.content).toBe(timeoutText(7));
    expect(r.content).toMatch(/timed out after 7 seconds/);
    expect(r.isError).toBe(true);
  });
  test('what the command printed before the timeout is kept after the timeout text', () => {
    const r = resultContent({ stdout: capturedOf('before\n'), stderr: none, exitCode: 0, timedOutAfterS: 1 });
    expect(r.content).toBe(`${timeoutText(1)}\nbefore\n`);
    expect(r.isError).toBe(true);
  });
});
