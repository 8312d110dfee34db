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

  test('a reply within previewChars is kept whole past every budget: a check reads a small reply from its item', () => {
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

  test('past every budget small notifications and lines that are not JSON keep markers, while small replies stay whole', () => {
    const pool = new KeptTextPool({ floor: 0, pool: 0 });
    const peer = new RpcPeer('flooded', () => {}, STDIO_WORDS, pool.account());
    const small = note(PEER_LIMITS.previewChars);
    const garbage = 'x'.repeat(PEER_LIMITS.previewChars);
    const error = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: `Parse error ${'.'.repeat(400)}` },
    };
    const notRpc = { id: 1, note: 'y'.repeat(400) };
    for (let i = 0; i < 100; i++) {
      peer.receive(small.text, small.value, true);
      peer.receive(garbage, undefined, false);
    }
    peer.receive(JSON.stringify(error), error, true);
    peer.receive(JSON.stringify(notRpc), notRpc, true);
    const marker = PEER_LIMITS.markerChars + `... (${PEER_LIMITS.previewChars} characters)`.length;
    const flood = peer.items.slice(0, 200).map((item) => item.text.length);
    expect(flood).toEqual(Array(200).fill(marker));
    // A malformed-input probe reads the error answer; JSON that is not JSON-RPC may be a malformed reply.
    expect(JSON.parse(peer.items[200]?.text ?? '')).toEqual(error);
    expect(JSON.parse(peer.items[201]?.text ?? '')).toEqual(notRpc);
  });

  test('past maxMarkers a text that would be a marker is read and counted, not kept; a small reply after it still is', () => {
    const pool = new KeptTextPool({ floor: 0, pool: 0 });
    const peer = new RpcPeer('flooded', () => {}, STDIO_WORDS, pool.account());
    const tiny = note(60);
    const extra = 250;
    for (let i = 0; i < PEER_LIMITS.maxMarkers + extra; i++) peer.receive(tiny.text, tiny.value, true);
    const reply = { jsonrpc: '2.0', id: 7, result: {} };
    peer.receive(JSON.stringify(reply), reply, true);
    expect(peer.items.length).toBe(PEER_LIMITS.maxMarkers + 1);
    expect(peer.items[0]?.text).toBe(tiny.text);
    expect(JSON.parse(peer.items.at(-1)?.text ?? '')).toEqual(reply);
    const d = peer.wire.diagnosis();
    expect(d.dropped).toBe(extra);
    expect(d.messages).toBe(PEER_LIMITS.maxMarkers + extra + 1);
  });

  test('a text of markerChars or less kept whole within the budget is no marker: maxMarkers does not count it', () => {
    const pool = new KeptTextPool({ floor: 1024 * 1024, pool: 0 });
    const peer = new RpcPeer('quiet', () => {}, STDIO_WORDS, pool.account());
    const tiny = note(PEER_LIMITS.markerChars);
    for (let i = 0; i < PEER_LIMITS.maxMarkers + 10; i++) peer.receive(tiny.text, tiny.value, true);
    expect(peer.items.length).toBe(PEER_LIMITS.maxMarkers + 10);
    expect(peer.wire.diagnosis().dropped).toBe(0);
  });
});

describe('RpcPeer.watch', () => {
  test('sees every text received past the kept items, keeps the first picks and counts them all, until stopped', () => {
    const peer = new RpcPeer('s', () => {}, STDIO_WORDS, new KeptTextPool().account());
    const small = note(100);
    for (let i = 0; i < PEER_LIMITS.maxKeptItems; i++) peer.receive(small.text, small.value, true);
    const watch = peer.watch(({ kind, text }) => (kind === 'not-json' ? text : undefined), 2);
    for (const line of ['banner 1', 'banner 2', 'banner 3']) {
      peer.receive(small.text, small.value, true);
      peer.receive(line, undefined, false);
    }
    expect(peer.items).toHaveLength(PEER_LIMITS.maxKeptItems);
    expect(watch.found).toEqual(['banner 1', 'banner 2']);
    expect(watch.count).toBe(3);
    watch.stop();
    peer.receive('banner 4', undefined, false);
    expect(watch.count).toBe(3);
  });

  test('an arrival carries its parse and kind: a reply, a batch, and text that is not JSON', () => {
    const peer = new RpcPeer('s', () => {});
    const seen = peer.watch((a) => ({ kind: a.kind, value: a.value }));
    const reply = { jsonrpc: '2.0', id: 1, result: {} };
    peer.receive(JSON.stringify(reply), reply, true);
    peer.receive(JSON.stringify([reply]), [reply], true);
    peer.receive('{"jsonrpc"', undefined, false);
    seen.stop();
    expect(seen.found).toEqual([
      { kind: 'success', value: reply },
      { kind: 'batch', value: [reply] },
      { kind: 'not-json', value: undefined },
    ]);
  });
});
