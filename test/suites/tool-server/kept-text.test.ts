import { describe, expect, test } from 'vitest';
import { STDIO_WORDS } from '../../../src/suites/tool-server/diagnosis.js';
import { KeptTextPool } from '../../../src/suites/tool-server/kept-text.js';
import { PEER_LIMITS, RpcPeer } from '../../../src/suites/tool-server/peer.js';

describe('KeptTextPool', () => {
  test('each account keeps its floor whatever the others took; past it, the shared pool decides', () => {
    const pool = new KeptTextPool({ floor: 10, pool: 25 });
    const a = pool.account();
    const b = pool.account();
    expect(a.take(10)).toBe(true);
    expect(pool.inUse()).toBe(0);
    expect(a.take(20)).toBe(true);
    expect(a.take(10)).toBe(false);
    expect(pool.inUse()).toBe(20);
    // b still has its floor, then what is left of the pool.
    expect(b.take(10)).toBe(true);
    expect(b.take(5)).toBe(true);
    expect(b.take(1)).toBe(false);
  });

  test('a released account gives back what it drew and keeps nothing more', () => {
    const pool = new KeptTextPool({ floor: 0, pool: 10 });
    const a = pool.account();
    const b = pool.account();
    expect(a.take(10)).toBe(true);
    expect(b.take(1)).toBe(false);
    a.release();
    expect(pool.inUse()).toBe(0);
    expect(a.take(1)).toBe(false);
    expect(b.take(10)).toBe(true);
  });
});

/** A JSON-RPC notification whose text is exactly `length` characters. */
function note(length: number): { text: string; value: unknown } {
  const bare = JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { p: '' } });
  const value = { jsonrpc: '2.0', method: 'n', params: { p: 'x'.repeat(length - bare.length) } };
  return { text: JSON.stringify(value), value };
}

describe('RpcPeer on a shared pool: a session flooded does not take what another keeps', () => {
  test('past its floor and the pool a peer keeps previews, then markers; another peer keeps its floor whole; a released peer gives its share back', () => {
    const size = PEER_LIMITS.previewChars * 2;
    const pool = new KeptTextPool({ floor: size, pool: size + PEER_LIMITS.previewChars });
    const flooded = new RpcPeer('flooded', () => {}, STDIO_WORDS, pool.account());
    const quiet = new RpcPeer('quiet', () => {}, STDIO_WORDS, pool.account());
    const m = note(size);
    for (let i = 0; i < 4; i++) flooded.receive(m.text, m.value, true);
    const kept = flooded.items.map((item) => item.text.length);
    // Its floor, then the pool: one whole; one preview from what is left; then markers only.
    const preview = `... (${size} characters)`.length;
    expect(kept).toEqual([size, size, PEER_LIMITS.previewChars + preview, PEER_LIMITS.markerChars + preview]);
    expect(pool.inUse()).toBe(size + PEER_LIMITS.previewChars);
    // The quiet session keeps its floor whole, though the pool is used up.
    quiet.receive(m.text, m.value, true);
    expect(quiet.items[0]?.text).toBe(m.text);
    quiet.receive(m.text, m.value, true);
    expect(quiet.items[1]?.text.length).toBe(PEER_LIMITS.markerChars + preview);
    // Once the flooded session is closed, what it drew is the others' again.
    flooded.keptText.release();
    expect(pool.inUse()).toBe(0);
    quiet.receive(m.text, m.value, true);
    expect(quiet.items[2]?.text).toBe(m.text);
  });

  test('a message within previewChars is kept whole past every budget: a check reads a small reply from its item', () => {
    const pool = new KeptTextPool({ floor: 0, pool: 0 });
    const peer = new RpcPeer('heavy', () => {}, STDIO_WORDS, pool.account());
    const batch = [
      { jsonrpc: '2.0', id: 'wirecheck-batch-1', result: {} },
      { jsonrpc: '2.0', id: 'wirecheck-batch-2', result: {} },
    ];
    const big = note(PEER_LIMITS.previewChars + 1);
    peer.receive(big.text, big.value, true);
    peer.receive(JSON.stringify(batch), batch, true);
    expect(peer.items[0]?.text.startsWith(big.text.slice(0, PEER_LIMITS.markerChars))).toBe(true);
    expect(peer.items[0]?.text.length).toBeLessThan(PEER_LIMITS.previewChars);
    expect(JSON.parse(peer.items[1]?.text ?? '')).toEqual(batch);
  });
});
