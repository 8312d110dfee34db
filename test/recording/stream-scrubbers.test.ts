import { describe, expect, test } from 'vitest';
import {
  createChunkScrubber,
  createEventStreamScrubber,
  maskSecrets,
  scrubSecrets,
} from '../../src/recording/index.js';
import { encodedForms, KEY, readingsWith, SLASH_KEY } from './secret-forms.js';

/** The text each block's deltas join to. */
function joinedDeltas(body: string): string {
  return body
    .split(/\n\n/)
    .filter((f) => f.trim() !== '')
    .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as { type: string; delta?: Record<string, string> })
    .filter((e) => e.type === 'content_block_delta')
    .map((e) => Object.entries(e.delta!).find(([k]) => k !== 'type')![1])
    .join('');
}

describe('createEventStreamScrubber: a secret over the deltas of a block', () => {
  test('a chunk per byte, deltas of one character, CRLF lines: still no piece of the key, no byte moved', () => {
    const events = [
      { type: 'message_start', message: { id: 'm', content: [] } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...[...`key: ${KEY}!`].map((c) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: c },
      })),
      { type: 'content_block_stop', index: 0 },
      { type: 'message_stop' },
    ];
    const stream = Buffer.from(
      events.map((e) => `event: ${e.type}\r\ndata: ${JSON.stringify(e)}\r\n\r\n`).join(''),
    );
    const scrubber = createEventStreamScrubber([KEY]);
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i++) out.push(...scrubber.push(stream.subarray(i, i + 1)));
    out.push(...scrubber.end());
    expect(out.map((b) => b.length)).toEqual(Array(stream.length).fill(1));
    const body = Buffer.concat(out).toString('utf8').replace(/\r\n/g, '\n');
    expect(body.length).toBe(stream.toString().replace(/\r\n/g, '\n').length);
    expect(joinedDeltas(body)).toBe(`key: [redacted${'*'.repeat(KEY.length - 10)}]!`);
  });

  test('memory stays bounded: a block of text without a secret is not held back', () => {
    const scrubber = createEventStreamScrubber([KEY]);
    let released = 0;
    let taken = 0;
    const frame = (text: string) =>
      Buffer.from(
        `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`,
      );
    for (let i = 0; i < 5000; i++) {
      const chunk = frame(`word${i} `);
      taken += chunk.length;
      released += scrubber.push(chunk).reduce((n, b) => n + b.length, 0);
      // What is held is the last few events (those a secret may begin in), not the block.
      expect(taken - released).toBeLessThan(4096);
    }
  });
});

describe('createEventStreamScrubber: an event too long to hold', () => {
  test('is let through, and the beginning of a key held before it is masked rather than kept', () => {
    const frame = (data: string) => Buffer.from(`event: content_block_delta\ndata: ${data}\n\n`);
    const delta = (text: string) =>
      frame(JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
    const scrubber = createEventStreamScrubber([KEY]);
    const out: Buffer[] = [];
    out.push(...scrubber.push(delta(`the key: ${KEY.slice(0, 12)}`)));
    // Over HELD_EVENT_LIMIT (1 MiB), in pieces: nothing of it is held once it passes the limit.
    const huge = frame(JSON.stringify({ type: 'ping', pad: 'x'.repeat(1100 * 1024) }));
    let held = 0;
    for (let i = 0; i < huge.length; i += 64 * 1024) {
      const piece = huge.subarray(i, i + 64 * 1024);
      const released = scrubber.push(piece);
      out.push(...released);
      held += piece.length - released.reduce((n, b) => n + b.length, 0);
    }
    expect(held).toBeLessThan(1100 * 1024);
    out.push(...scrubber.push(delta(KEY.slice(12))), ...scrubber.end());
    const text = Buffer.concat(out).toString('utf8');
    expect(text).not.toContain(KEY.slice(0, 12));
    expect(text).toContain('the key: [redacted**]');
  });

  test('many small events behind an open beginning of a key are not all held: the beginning is masked', () => {
    const scrubber = createEventStreamScrubber([KEY]);
    const out: Buffer[] = [];
    const delta = (text: string) =>
      Buffer.from(
        `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`,
      );
    out.push(...scrubber.push(delta(`the key: ${KEY.slice(0, 12)}`)));
    const ping = Buffer.from('event: ping\ndata: {"type":"ping"}\n\n');
    let taken = 0;
    let released = 0;
    for (let i = 0; i < 50_000; i++) {
      taken += ping.length;
      const r = scrubber.push(ping);
      released += r.reduce((n, b) => n + b.length, 0);
      out.push(...r);
    }
    expect(taken - released).toBeLessThan(1100 * 1024);
    out.push(...scrubber.end());
    expect(Buffer.concat(out).toString()).not.toContain(KEY.slice(0, 12));
  });
});

describe('maskSecrets and createChunkScrubber: encoded forms, same length', () => {
  const forms = [...encodedForms(KEY), ...encodedForms(SLASH_KEY)];

  test('maskSecrets masks each form at its length in bytes, as scrubSecrets removes it', () => {
    for (const form of forms) {
      const text = `before ${form} after`;
      const masked = maskSecrets(text, [KEY, SLASH_KEY]);
      expect(readingsWith(masked, KEY), form).toEqual([]);
      expect(readingsWith(masked, SLASH_KEY), form).toEqual([]);
      expect(Buffer.byteLength(masked)).toBe(Buffer.byteLength(text));
      expect(scrubSecrets(text, [KEY, SLASH_KEY])).not.toContain(SLASH_KEY.slice(0, 9));
    }
  });

  test("scrubSecrets finds a key written with JSON's \\/ escape", () => {
    expect(scrubSecrets(`{"t":"${SLASH_KEY.replaceAll('/', '\\/')}"}`, [SLASH_KEY])).toBe(
      '{"t":"[redacted]"}',
    );
  });

  test('the chunk scrubber masks every form split at every byte, chunk sizes kept', () => {
    for (const form of forms) {
      const stream = Buffer.from(`data: {"x":"${form}"}\n\n`);
      for (let cut = 1; cut < stream.length; cut++) {
        const scrubber = createChunkScrubber([KEY, SLASH_KEY]);
        const out = [
          ...scrubber.push(stream.subarray(0, cut)),
          ...scrubber.push(stream.subarray(cut)),
          ...scrubber.end(),
        ];
        expect(out.map((b) => b.length)).toEqual([cut, stream.length - cut]);
        const text = Buffer.concat(out).toString('utf8');
        expect(readingsWith(text, KEY), `${form} cut at ${cut}`).toEqual([]);
        expect(readingsWith(text, SLASH_KEY), `${form} cut at ${cut}`).toEqual([]);
      }
    }
  });

  test('the chunk scrubber does not write into the chunk it was given (it may still be on its way to a client)', () => {
    const chunk = Buffer.from(`key ${KEY}\n`);
    const copy = Buffer.from(chunk);
    const scrubber = createChunkScrubber([KEY]);
    const out = [...scrubber.push(chunk), ...scrubber.end()];
    expect(chunk.equals(copy)).toBe(true);
    expect(Buffer.concat(out).toString()).not.toContain(KEY);
  });
});
