import { expect, test } from 'vitest';
import { BatchBuffer, type TakenWrite } from '../../../src/mocks/messages/batch-buffer.js';

const textOf = (i: number) => `write ${i}: ${'é'.repeat((i * 37) % 3000)}|`;

/** Builds write i from two appends, the second of which may move the first to a new slab. */
function build(out: BatchBuffer, i: number): TakenWrite {
  const text = textOf(i);
  out.text(text.slice(0, 9));
  out.text(text.slice(9));
  return out.take();
}

test('writes never released keep their bytes while later writes fill new slabs', () => {
  const out = new BatchBuffer();
  const taken = Array.from({ length: 400 }, (_, i) => build(out, i));
  expect(taken.map((w) => w.bytes.toString('utf8'))).toEqual(taken.map((_, i) => textOf(i)));
  expect(new Set(taken.map((w) => w.bytes.buffer)).size).toBeGreaterThan(2);
});

test('the memory of released writes is built on again: a long stream cycles through a few slabs', () => {
  const out = new BatchBuffer();
  const slabs = new Set<ArrayBufferLike>();
  let bytes = 0;
  for (let i = 0; i < 2000; i++) {
    const w = build(out, i);
    expect(w.bytes.toString('utf8')).toBe(textOf(i));
    slabs.add(w.bytes.buffer);
    bytes += w.bytes.length;
    w.release();
  }
  expect(bytes).toBeGreaterThan(4_000_000);
  expect(slabs.size).toBeLessThanOrEqual(6);
});

test('a write still held keeps its bytes while released ones around it are built on again', () => {
  const out = new BatchBuffer();
  const held = new Map<number, TakenWrite>();
  for (let i = 0; i < 2000; i++) {
    const w = build(out, i);
    if (i % 7 === 3) held.set(i, w);
    else {
      w.release();
      // A write released twice counts once: the slab of a held write is not freed by it.
      if (i % 11 === 0) w.release();
    }
  }
  for (const [i, w] of held) expect(w.bytes.toString('utf8')).toBe(textOf(i));
});

test('a write larger than any slab gets a slab of its own size, its start copied along', () => {
  const out = new BatchBuffer();
  out.text('head ');
  const first = out.take();
  out.text('start of a long write, ');
  const big = 'x'.repeat(1 << 20);
  const buf = out.reserve(big.length);
  expect(buf.length - out.end).toBeGreaterThanOrEqual(big.length);
  out.end += buf.write(big, out.end, 'latin1');
  expect(out.take().bytes.toString()).toBe(`start of a long write, ${big}`);
  expect(first.bytes.toString()).toBe('head ');
});

test('reserve hands back room of at least the size asked for', () => {
  const out = new BatchBuffer();
  for (const size of [1, 100, 16 * 1024, 300 * 1024, 3]) {
    const buf = out.reserve(size);
    expect(buf.length - out.end).toBeGreaterThanOrEqual(size);
    out.end += size;
  }
  expect(out.take().bytes.length).toBe(1 + 100 + 16 * 1024 + 300 * 1024 + 3);
});

test('a finished buffer hands its slab to the next stream only once its writes are released', () => {
  const first = new BatchBuffer();
  first.text('kept by the socket');
  const held = first.take();
  first.close();
  // Any number of later buffers: none builds on the held write's bytes.
  for (let i = 0; i < 20; i++) {
    const other = new BatchBuffer();
    other.text('x'.repeat(100));
    expect(other.buf.buffer).not.toBe(held.bytes.buffer);
    other.take().release();
    other.close();
  }
  expect(held.bytes.toString()).toBe('kept by the socket');
  held.release();
  const next = new BatchBuffer();
  next.text('next stream');
  // The pool is shared by every buffer and hands out the slab freed last: this one.
  expect(next.buf.buffer).toBe(held.bytes.buffer);
  expect(next.take().bytes.toString()).toBe('next stream');
});

test('reuse() and release() are the same report, counted once', () => {
  const out = new BatchBuffer();
  out.text('a');
  const a = out.take();
  out.text('b');
  const b = out.take();
  a.reuse();
  a.release();
  a.reuse();
  // b is still out: the slab must not be built on from its start.
  out.text('c');
  const c = out.take();
  expect([a.bytes.toString(), b.bytes.toString(), c.bytes.toString()]).toEqual(['a', 'b', 'c']);
});
