import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createInMemoryPair, StreamTransport, type TransportError } from '../../src/transports/index.js';

describe('transports', () => {
  test('an in-memory pair delivers copies in order', async () => {
    const [a, b] = createInMemoryPair();
    const got: unknown[] = [];
    b.onmessage = (m) => got.push(m);
    await a.start();
    await b.start();
    const sent = { x: [1] };
    await a.send(sent);
    await a.send({ y: 2 });
    await new Promise((r) => setTimeout(r, 0));
    expect(got).toEqual([{ x: [1] }, { y: 2 }]);
    expect(got[0]).not.toBe(sent);
    await a.close();
    await expect(b.send({})).rejects.toThrow(/closed/);
  });

  test('a stdio client transport closes at once on a line that is not JSON, naming the line', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new StreamTransport({ input, output, closeOnParseError: true, label: 'stdio server' });
    const errors: TransportError[] = [];
    let closed = 0;
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    t.onerror = (e) => errors.push(e);
    t.onclose = () => closed++;
    await t.start();
    input.write('{"jsonrpc":"2.0","id":1,"result":{}}\nServer ready\n{"jsonrpc":"2.0","id":2,"result":{}}\n');
    await new Promise((r) => setImmediate(r));
    expect(got).toHaveLength(1);
    expect(errors[0]?.message).toContain('line 2 is not JSON');
    expect(errors[0]?.message).toContain('Server ready');
    expect(errors[0]?.fatal).toBe(true);
    expect(closed).toBe(1);
  });

  test('a stdio transport writes one line per message', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new StreamTransport({ input, output });
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(output.read().toString()).toBe('{"jsonrpc":"2.0","method":"ping","id":1}\n');
    await t.close();
  });
});
