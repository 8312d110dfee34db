import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  createLineDecoder,
  DEFAULT_MAX_LINE_BYTES,
  type DecodedLine,
  encodeLine,
} from '../../../src/protocol/jsonrpc/index.js';

function decodeChunks(chunks: readonly (Uint8Array | string)[], maxLineBytes?: number, maxDepth?: number) {
  const lines: DecodedLine[] = [];
  const decoder = createLineDecoder({
    onLine: (l) => lines.push(l),
    ...(maxLineBytes ? { maxLineBytes } : {}),
    ...(maxDepth ? { maxDepth } : {}),
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

  test('readsLastLine: a last line without a newline is read as a line (a server whose client closed stdin after its last message)', () => {
    const lines: DecodedLine[] = [];
    const decoder = createLineDecoder({ onLine: (l) => lines.push(l), readsLastLine: true });
    decoder.feed('{"a":1}\n{"b":2}');
    expect(decoder.end()).toBeUndefined();
    expect(lines.map((l) => l.ok && l.value)).toEqual([{ a: 1 }, { b: 2 }]);
    // What is no JSON stays a line that is no JSON, and is said so.
    const bad: DecodedLine[] = [];
    const other = createLineDecoder({ onLine: (l) => bad.push(l), readsLastLine: true });
    other.feed('{"b":');
    other.end();
    expect(bad).toMatchObject([{ ok: false, reason: 'syntax', line: '{"b":' }]);
  });

  test('a line over the size limit is reported once, as soon as it passes it, and the next line decodes', () => {
    const { lines } = decodeChunks([`{"big":"${'x'.repeat(100)}`, `${'y'.repeat(100)}"}\n{"a":1}\n`], 64);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      ok: false,
      reason: 'too-long',
      error:
        'line longer than the 64-byte limit (maxLineBytes): 108 bytes and no newline yet; the rest of it is skipped',
      line: `{"big":"${'x'.repeat(100)}`,
      lineNumber: 1,
      bytes: 108,
    });
    expect(lines[1]).toMatchObject({ ok: true, value: { a: 1 }, lineNumber: 2 });
  });

  test('a line that never ends is reported while it grows, and no more than the limit is ever held', () => {
    const lines: DecodedLine[] = [];
    const decoder = createLineDecoder({ onLine: (l) => lines.push(l), maxLineBytes: 1024 });
    const chunk = new Uint8Array(100).fill(0x78);
    for (let i = 0; i < 10_000; i++) {
      decoder.feed(chunk);
      expect(lines).toHaveLength(i >= 10 ? 1 : 0);
    }
    expect(lines[0]).toMatchObject({ reason: 'too-long', bytes: 1100, line: 'x'.repeat(200) });
    expect(decoder.end()).toBeUndefined();
    expect(lines).toHaveLength(1);
  });

  test('the default line limit is 16 MiB, the JSON length limit', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
    const lines: DecodedLine[] = [];
    const decoder = createLineDecoder({ onLine: (l) => lines.push(l) });
    const mib = new Uint8Array(1024 * 1024).fill(0x20);
    for (let i = 0; i < 17; i++) decoder.feed(mib);
    decoder.feed('{"after":1}\n{"next":2}\n');
    expect(lines.map((l) => (l.ok ? l.value : l.reason))).toEqual(['too-long', { next: 2 }]);
  });

  test('a line nested deeper than maxDepth is refused before it is parsed, naming the limit', () => {
    const deep = `{"jsonrpc":"2.0","id":1,"result":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const { lines } = decodeChunks([`${deep}\n{"a":1}\n`]);
    expect(lines[0]).toMatchObject({ ok: false, reason: 'too-deep', lineNumber: 1 });
    expect(lines[0]?.ok === false && lines[0].error).toContain('512-level limit (maxDepth)');
    expect(lines[1]).toMatchObject({ ok: true, value: { a: 1 } });
    const shallow = decodeChunks(['[[[1]]]\n'], undefined, 2).lines[0];
    expect(shallow).toMatchObject({ ok: false, reason: 'too-deep' });
  });

  test('a line that is not JSON says so with its first characters', () => {
    const { lines } = decodeChunks(['y\n']);
    expect(lines[0]).toMatchObject({ ok: false, reason: 'syntax', line: 'y', bytes: 1 });
  });
});

describe('stdio framing with unreadableHeadBytes: a long line that is not JSON is refused from its head', () => {
  const HEAD = 256;
  const piece = fc.oneof(
    fc.constantFrom(
      'null',
      'true',
      'false',
      'nul',
      'not json ',
      '2026 started',
      '-1.5e3',
      '12-11',
      ' ',
      '\t',
      '\r',
    ),
    fc.json(),
    fc.string({ maxLength: 40 }),
    fc.constantFrom('{"a":', '[1,', '"str', '}', 'Привет', '😀', '\v', '\u00a0'),
  );
  const line = fc
    .tuple(fc.array(piece, { maxLength: 6 }), fc.nat({ max: 600 }))
    .map(([parts, pad]) => `${parts.join('')}${' '.repeat(pad)}${parts.length % 2 === 0 ? 'x' : ''}`)
    .map((l) => l.replaceAll('\n', ''));

  function decode(text: string, cuts: number[], unreadableHeadBytes?: number): DecodedLine[] {
    const lines: DecodedLine[] = [];
    const decoder = createLineDecoder({
      onLine: (l) => lines.push(l),
      ...(unreadableHeadBytes === undefined ? {} : { unreadableHeadBytes }),
    });
    for (const c of splitAt(new TextEncoder().encode(text), cuts)) decoder.feed(c);
    decoder.end();
    return lines;
  }

  test('every line reads as it does without the option: the same values, the same lines refused', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
        const text = `${lines.join('\n')}\n`;
        const whole = decode(text, cuts);
        const headed = decode(text, cuts, HEAD);
        expect(headed.map((l) => [l.lineNumber, l.ok ? l.value : 'refused'])).toEqual(
          whole.map((l) => [l.lineNumber, l.ok ? l.value : 'refused']),
        );
        for (const l of headed) if (!l.ok && l.cut) expect(l.bytes).toBeGreaterThan(HEAD);
      }),
      { numRuns: 500 },
    );
  });

  test('a flood line is reported from its head, never held whole, and the next line still decodes', () => {
    const lines: DecodedLine[] = [];
    const decoder = createLineDecoder({ onLine: (l) => lines.push(l), unreadableHeadBytes: 1000 });
    const flood = 'not json '.repeat(7281);
    decoder.feed(`${flood}\n`);
    for (let i = 0; i < 100; i++) decoder.feed(flood);
    decoder.feed('\n{"id":1}\n');
    expect(lines[0]).toMatchObject({
      ok: false,
      reason: 'syntax',
      cut: true,
      bytes: flood.length,
      line: flood.slice(0, 1000),
      error: 'Unexpected token "o" at position 1: not JSON',
    });
    expect(lines[1]).toMatchObject({ ok: false, cut: true, bytes: flood.length * 100 });
    expect(lines[2]).toMatchObject({ ok: true, value: { id: 1 } });
  });

  test('a long JSON message and a long line the head cannot judge are read whole', () => {
    const big = JSON.stringify({ text: 'x'.repeat(5000) });
    const { lines } = { lines: decode(`${big}\n"${'y'.repeat(3000)}\n`, [100, 2000], 512) };
    expect(lines[0]).toMatchObject({ ok: true, value: { text: 'x'.repeat(5000) } });
    expect(lines[1]).toMatchObject({ ok: false, reason: 'syntax', bytes: 3001 });
    expect(lines[1]?.ok === false && lines[1].cut).toBeUndefined();
  });
});
