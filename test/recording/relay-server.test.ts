import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { createPacer, createUpstream } from '../../src/recording/relay-server.js';

function source() {
  const calls: string[] = [];
  return { calls, pause: () => calls.push('pause'), resume: () => calls.push('resume') };
}

describe('the pacing of a recording proxy', () => {
  test('paused while the client or the disk is behind, resumed once neither is; one hold per kind', async () => {
    const up = source();
    const pacer = createPacer(up);
    const client = new EventEmitter() as unknown as ServerResponse;
    let drained!: () => void;
    const file = { queuedBytes: 9 * 1024 * 1024, drained: () => new Promise<void>((r) => (drained = r)) };
    pacer.client(client);
    pacer.client(client);
    pacer.disk(file);
    expect(up.calls).toEqual(['pause']);
    client.emit('drain');
    await Promise.resolve();
    expect(up.calls).toEqual(['pause']);
    drained();
    await new Promise((r) => setImmediate(r));
    expect(up.calls).toEqual(['pause', 'resume']);
  });

  test('a file under 8 MiB waiting for the disk, or none, pauses nothing', () => {
    const up = source();
    const pacer = createPacer(up);
    pacer.disk({ queuedBytes: 1024, drained: () => new Promise(() => {}) });
    pacer.disk(undefined);
    expect(up.calls).toEqual([]);
  });

  test('an upstream that is not http: or https: is refused', () => {
    expect(() => createUpstream('ftp://example.com/')).toThrow('upstream must be an http: or https: URL');
    const upstream = createUpstream('http://127.0.0.1:9/sse');
    expect(upstream.url.pathname).toBe('/sse');
    upstream.destroy();
  });
});
