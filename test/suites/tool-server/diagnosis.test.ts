import { describe, expect, test } from 'vitest';
import { cannotSpeakProtocol, SSE_WORDS, WireLog } from '../../../src/suites/tool-server/diagnosis.js';
import { PEER_LIMITS, RpcPeer } from '../../../src/suites/tool-server/peer.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('what a channel received, summed up (WireLog)', () => {
  test('nothing at all, and bytes that never made a line', () => {
    expect(new WireLog().diagnosis().summary).toBe('nothing arrived on stdout');
    const log = new WireLog(SSE_WORDS);
    log.bytesIn(bytes('event: endpoint\ndata: /m\n\n'));
    expect(log.diagnosis().summary).toBe(
      'the stream carried 26 bytes but no complete message event, starting "event: endpoint\\ndata: /m\\n\\n"',
    );
    expect(cannotSpeakProtocol(new WireLog().diagnosis())).toBeUndefined();
  });

  test('lines that are not JSON: counted, the first quoted with why', () => {
    const log = new WireLog();
    for (let i = 0; i < 3; i++) {
      log.bytesIn(bytes('y\n'));
      log.unit();
      log.problem('not-json', 'y', 'Unexpected token "y" at position 0: not JSON');
    }
    const d = log.diagnosis();
    expect(d).toMatchObject({ units: 3, messages: 0, bytes: 6, firstBytes: 'y\ny\ny\n' });
    expect(d.problems).toEqual([
      { kind: 'not-json', count: 3, first: 'y', detail: 'Unexpected token "y" at position 0: not JSON' },
    ]);
    expect(d.summary).toBe(
      'stdout carried 3 lines (6 bytes): no JSON-RPC message, 3 not JSON (the first: "y": Unexpected token "y" at position 0: not JSON)',
    );
    expect(cannotSpeakProtocol(d)).toBe(d.summary);
  });

  test('a banner before real messages is diagnosed, but the target can speak the protocol', () => {
    const log = new WireLog();
    log.unit();
    log.problem('not-json', 'Starting server...', 'not JSON');
    log.unit();
    log.message();
    const d = log.diagnosis();
    expect(d.summary).toContain('1 JSON-RPC message, 1 not JSON (the first: "Starting server...": not JSON)');
    expect(cannotSpeakProtocol(d)).toBeUndefined();
  });

  test('a fatal problem is the whole story', () => {
    const log = new WireLog();
    log.unit();
    log.message();
    log.fatal('over-limit', 'xxxx', 'line 2 of stdout is longer than the 16-byte limit (maxLineBytes)');
    const d = log.diagnosis();
    expect(d.fatal).toMatchObject({ kind: 'over-limit', first: 'xxxx' });
    expect(d.summary).toBe(
      'wirecheck stopped reading stdout: line 2 of stdout is longer than the 16-byte limit (maxLineBytes)',
    );
    expect(cannotSpeakProtocol(d)).toBe(d.summary);
  });

  test('only 200 first bytes and 200 characters of a first occurrence are kept', () => {
    const log = new WireLog();
    log.bytesIn(new Uint8Array(1000).fill(0x61));
    log.problem('not-json', 'b'.repeat(1000), 'x');
    const d = log.diagnosis();
    expect(d.firstBytes).toBe('a'.repeat(200));
    expect(d.problems[0]?.first).toBe('b'.repeat(200));
    expect(d.bytes).toBe(1000);
  });
});

describe('the peer: echoes, unreadable lines and bounded memory', () => {
  test('a request sent back unchanged is an echo: not answered, and its wait ends at once saying so', async () => {
    const answered: unknown[] = [];
    const peer = new RpcPeer('cat', (m) => answered.push(m));
    const text = '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}';
    peer.recordSent(text, JSON.parse(text));
    const waiting = peer.wait(7, 5000, () => undefined);
    peer.receive(text, JSON.parse(text), true);
    const got = await waiting;
    expect(got.reply).toBeUndefined();
    expect(got).toMatchObject({ why: expect.stringContaining('it looks like `cat`, not a tool server') });
    expect(answered).toEqual([]);
    const d = peer.wire.diagnosis();
    expect(d.messages).toBe(0);
    expect(d.summary).toContain('the server echoed the request back');
    expect(cannotSpeakProtocol(d)).toBe(d.summary);
  });

  test("the server's requests are answered up to maxAnsweredRequests, and the sent texts kept are bounded", () => {
    const answered: unknown[] = [];
    const peer = new RpcPeer('p', (m) => {
      answered.push(m);
      peer.recordSent(JSON.stringify(m), m);
    });
    // Ids as long as an answered one may be (maxAnsweredIdChars): the answers echo them whole.
    const longId = 'i'.repeat(PEER_LIMITS.maxAnsweredIdChars - 5);
    for (let n = 0; n < PEER_LIMITS.maxAnsweredRequests + 5; n++) {
      const ping = { jsonrpc: '2.0', id: `${longId}${n}`, method: 'ping' };
      peer.receive(JSON.stringify(ping), ping, true);
    }
    expect(answered).toHaveLength(PEER_LIMITS.maxAnsweredRequests);
    const sent = peer.items.filter((i) => i.direction === 'sent');
    expect(sent.reduce((n, i) => n + i.text.length, 0)).toBeLessThanOrEqual(
      PEER_LIMITS.maxAnsweredRequests * (PEER_LIMITS.maxAnsweredIdChars + 40),
    );
    expect(PEER_LIMITS.maxAnsweredRequests * (PEER_LIMITS.maxAnsweredIdChars + 40)).toBeLessThanOrEqual(
      PEER_LIMITS.maxSentText,
    );
    // What it kept of the pings counts against the process's pool, which the tests after share.
    peer.keptText.release();
  });

  test("a server's own request is answered even when it looks like nothing the peer sent", () => {
    const answered: unknown[] = [];
    const peer = new RpcPeer('p', (m) => answered.push(m));
    peer.recordSent('{"jsonrpc":"2.0","id":1,"method":"ping"}', { jsonrpc: '2.0', id: 1, method: 'ping' });
    peer.receive(
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}',
      { jsonrpc: '2.0', id: 1, method: 'ping', params: {} },
      true,
    );
    expect(answered).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  test("the server's reply that matches the harness's own answer to a server ping is a reply, not an echo", async () => {
    const answered: unknown[] = [];
    const peer = new RpcPeer('p', (m) => answered.push(m));
    // The server pings with id 7; the harness answers it; then the harness pings with id 7 too.
    const serverPing = { jsonrpc: '2.0', id: 7, method: 'ping' };
    peer.receive(JSON.stringify(serverPing), serverPing, true);
    const answer = '{"jsonrpc":"2.0","id":7,"result":{}}';
    peer.recordSent(answer, answered[0]);
    const ping = '{"jsonrpc":"2.0","id":7,"method":"ping"}';
    peer.recordSent(ping, JSON.parse(ping));
    const waiting = peer.wait(7, 5000, () => undefined);
    peer.receive(answer, JSON.parse(answer), true);
    expect(await waiting).toEqual({ reply: { jsonrpc: '2.0', id: 7, result: {} } });
    expect(peer.wire.diagnosis().problems).toEqual([]);
  });

  test('an answer cut at a reading limit ends the waits of the requests it would carry, and no other', async () => {
    const peer = new RpcPeer('p', () => {});
    const cut = peer.wait(1, 5000, () => undefined);
    const other = peer.wait(2, 5000, () => undefined);
    peer.unreadable([1], 'wirecheck stopped reading the answer to its POST: a body past its limit');
    expect(await cut).toEqual({
      reply: undefined,
      why: 'wirecheck stopped reading the answer to its POST: a body past its limit',
    });
    const reply = { jsonrpc: '2.0', id: 2, result: {} };
    peer.receive(JSON.stringify(reply), reply, true);
    expect(await other).toEqual({ reply });
  });

  test('a wait that times out says what arrived meanwhile', async () => {
    const peer = new RpcPeer('p', () => {});
    const waiting = peer.wait(1, 50, () => undefined);
    peer.receive('Listening on port 8000', undefined, false, { kind: 'not-json', detail: 'not JSON' });
    expect((await waiting) as { why: string }).toMatchObject({
      why: 'no reply within 50 ms; stdout carried 1 line (0 bytes): no JSON-RPC message, 1 not JSON (the first: "Listening on port 8000": not JSON)',
    });
  });

  test('JSON nested too deep is recorded as such, with the limit', () => {
    const peer = new RpcPeer('p', () => {});
    peer.receive('[[[[', undefined, false, {
      kind: 'too-deep',
      detail: 'JSON nested deeper than the 512-level limit (maxDepth)',
    });
    expect(peer.wire.diagnosis().problems[0]).toMatchObject({
      kind: 'too-deep',
      detail: expect.stringContaining('maxDepth'),
    });
    expect(peer.items[0]).toMatchObject({ kind: 'not-json', text: '[[[[' });
  });

  test('a flood is counted, not kept: items, their text and stray replies stop growing at their caps', () => {
    const peer = new RpcPeer('p', () => {});
    const long = 'z'.repeat(5000);
    for (let i = 0; i < PEER_LIMITS.maxKeptItems + 500; i++) {
      peer.receive(long, undefined, false);
      const reply = { jsonrpc: '2.0', id: 100_000 + i, result: {} };
      peer.receive(JSON.stringify(reply), reply, true);
    }
    const received = peer.items.filter((i) => i.direction === 'received');
    expect(received).toHaveLength(PEER_LIMITS.maxKeptItems);
    expect(received[0]?.text).toBe(`${'z'.repeat(PEER_LIMITS.previewChars)}... (5000 characters)`);
    expect(peer.strayReplies).toHaveLength(PEER_LIMITS.maxStrayReplies);
    expect(peer.repliesHeld()).toBeLessThanOrEqual(PEER_LIMITS.maxKeptItems);
    const d = peer.wire.diagnosis();
    expect(d.units).toBe(2 * (PEER_LIMITS.maxKeptItems + 500));
    expect(d.dropped).toBe(2 * (PEER_LIMITS.maxKeptItems + 500) - PEER_LIMITS.maxKeptItems);
    expect(d.summary).toContain('were read but not kept');
  });

  test('a reply a waiter took is not held by the peer; a late one is, for the wait that follows', async () => {
    const peer = new RpcPeer('p', () => {});
    const pad = 'x'.repeat(1024 * 1024);
    for (let id = 1; id <= 20; id++) {
      peer.recordSent(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`, {
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
      });
      const waiting = peer.wait(id, 5000, () => undefined);
      const reply = { jsonrpc: '2.0', id, result: { tools: [], pad } };
      peer.receive(JSON.stringify(reply), reply, true);
      expect((await waiting).reply).toEqual(reply);
    }
    expect(peer.repliesHeld()).toBe(0);
    peer.recordSent('{"jsonrpc":"2.0","id":21,"method":"ping"}', { jsonrpc: '2.0', id: 21, method: 'ping' });
    expect((await peer.wait(21, 10, () => undefined)).reply).toBeUndefined();
    const late = { jsonrpc: '2.0', id: 21, result: {} };
    peer.receive(JSON.stringify(late), late, true);
    expect(peer.repliesHeld()).toBe(1);
    expect((await peer.wait(21, 0, () => undefined)).reply).toEqual(late);
  });

  test('replies to ids never sent are kept while their text fits maxStrayText; replies to its own requests always', async () => {
    const peer = new RpcPeer('p', () => {});
    const pad = 'x'.repeat(1024 * 1024);
    const fit = Math.floor(PEER_LIMITS.maxStrayText / (pad.length + 50));
    for (let i = 0; i < fit + 10; i++) {
      const stray = { jsonrpc: '2.0', id: `stray-${i}`, result: { pad } };
      peer.receive(JSON.stringify(stray), stray, true);
    }
    expect(peer.strayReplies).toHaveLength(fit);
    expect(peer.repliesHeld()).toBe(fit);
    expect(peer.hasReply(`stray-${fit}`)).toBe(false);
    // Its own request's reply, as large, still arrives and is kept.
    peer.recordSent('{"jsonrpc":"2.0","id":1,"method":"ping"}', { jsonrpc: '2.0', id: 1, method: 'ping' });
    const waiting = peer.wait(1, 5000, () => undefined);
    const own = { jsonrpc: '2.0', id: 1, result: { pad } };
    peer.receive(JSON.stringify(own), own, true);
    expect(await waiting).toEqual({ reply: own });
    // The waiter took it: the peer knows it came, and holds no copy for the session's life.
    expect(peer.hasReply(1)).toBe(true);
    expect(peer.repliesHeld()).toBe(fit);
    expect(peer.wire.diagnosis().messages).toBe(fit + 11);
  });
});
