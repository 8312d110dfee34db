import { describe, expect, it } from 'vitest';
import { clip, detach } from '../../src/protocol/clip.js';

describe('clip', () => {
  it('keeps a text that fits whole', () => {
    expect(clip('short text', 10)).toBe('short text');
  });

  it('cuts a longer text at max characters and notes its length', () => {
    expect(clip('abcdefghij', 4)).toBe('abcd... (10 characters)');
  });

  it('never splits a surrogate pair at the cut', () => {
    // '🙂' is two UTF-16 units; a cut at 4 would end on its high half.
    const cut = clip('abc🙂def', 4);
    expect(cut).toBe('abc... (8 characters)');
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });

  it('keeps a pair that ends exactly at the cut', () => {
    expect(clip('ab🙂def', 4)).toBe('ab🙂... (7 characters)');
  });
});

describe('detach', () => {
  it('gives an equal string, lone surrogates included', () => {
    const text = `${'x'.repeat(20)}\uD800${'y'.repeat(20)}`;
    expect(detach(text)).toBe(text);
  });
});
