import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createLineDecoder, type DecodedLine, encodeLine } from '../../../src/protocol/jsonrpc/index.js';

function decodeChunks(chunks: readonly (Uint8Array | string)[], maxLineBytes?: number) {
  const lines: DecodedLine[] = [];
  const decoder = createLineDecoder({
    onLine: (l) => lines.push(l),
    ...(maxLineBytes ? { maxLineBytes } : {}),
  });
  for (const c of chunks) decoder.feed(c);
  const rest = decoder.end();
  return { lines, rest };
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of points) {
    out.push(bytes.subarray(at, p));
    at = p;
  }
  out.push(bytes.subarray(at));
  return out;
}

describe('stdio framing: one JSON-RPC message per line', () => {
  test('each message is one line ending in a newline', () => {
    expect(encodeLine({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    );
  });

  test('messages survive every chunking, including a UTF-8 character split between chunks', () => {
    const messages = [{ a: 'Привет' }, { b: '😀 emoji' }, { c: 1 }];
    const bytes = new TextEncoder().encode(messages.map(encodeLine).join(''));
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        const { lines, rest } = decodeChunks(splitAt(bytes, cuts));
        expect(rest).toBeUndefined();
        expect(lines.map((l) => (l.ok ? l.value : l.error))).toEqual(messages);
      }),
      { numRuns: 200 },
    );
  });

  test('a CRLF line ending counts as one line terminator, even split across chunks', () => {
    const { lines } = decodeChunks(['{"a":1}\r', '\n{"b":2}\r\n']);
    expect(lines.map((l) => l.ok && l.value)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test('a line that is not JSON is reported with its number and text, and later lines still decode', () => {
    const { lines } = decodeChunks(['Starting server...\n{"ok":true}\n']);
    expect(lines[0]).toMatchObject({ ok: false, line: 'Starting server...', lineNumber: 1 });
    expect(lines[1]).toMatchObject({ ok: true, value: { ok: true }, lineNumber: 2 });
  });

  test('blank lines are skipped', () => {
    const { lines } = decodeChunks(['\n\r\n{"a":1}\n\n']);
    expect(lines).toHaveLength(1);
  });

  test('a last line without a newline is reported as an unterminated line', () => {
    const { lines, rest } = decodeChunks(['{"a":1}\n{"b":']);
    expect(rest).toBe('{"b":');
    expect(lines[1]).toMatchObject({ ok: false, line: '{"b":' });
  });

  test('a line over the size limit is reported once and the next line decodes', () => {
    const { lines } = decodeChunks([`{"big":"${'x'.repeat(100)}`, `${'y'.repeat(100)}"}\n{"a":1}\n`], 64);
    expect(lines[0]).toMatchObject({ ok: false, error: 'line longer than 64 bytes' });
    expect(lines[1]).toMatchObject({ ok: true, value: { a: 1 } });
  });
});
