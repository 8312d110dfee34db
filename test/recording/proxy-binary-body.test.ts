import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { startRecordingProxy } from '../../src/recording/index.js';

// A request body that is not valid UTF-8 is recorded as base64: it was written so unscrubbed,
// and a key pasted into it (a prompt quoting a .env file, one Latin-1 byte beside it) with it.

test('record messages: a key in a request body that is not UTF-8 is masked in place in bodyBase64', async () => {
  const KEY = 'sk-ant-api03-SECRETKEYVALUE-abcdef0123456789';
  const received: Buffer[] = [];
  const upstream = createServer((req, res) => {
    req.on('data', (b: Buffer) => received.push(b));
    req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"type":"error"}'));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const proxy = await startRecordingProxy({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
  });
  const body = Buffer.concat([
    Buffer.from(`{"messages":[{"role":"user","content":"my .env: ANTHROPIC_API_KEY=${KEY} caf`),
    Buffer.from([0xe9]),
    Buffer.from('"}]}'),
  ]);
  try {
    const reply = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body,
    });
    await reply.text();
    await proxy.settled();
  } finally {
    await proxy.close();
    upstream.close();
  }
  // The upstream got the body as sent; the recording the same bytes, the key masked.
  expect(Buffer.concat(received).equals(body)).toBe(true);
  const request = proxy.exchanges[0]!.request;
  expect(request.body).toBeUndefined();
  const recorded = Buffer.from(request.bodyBase64 ?? '', 'base64');
  expect(recorded.length).toBe(body.length);
  expect(recorded.toString('latin1')).not.toContain(KEY);
  expect(recorded.toString('latin1')).toContain('ANTHROPIC_API_KEY=[redacted');
  expect(recorded[recorded.indexOf('caf') + 3]).toBe(0xe9);
});
