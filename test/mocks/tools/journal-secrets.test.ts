import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import {
  journalFileWriter,
  type RunningMockToolServer,
  startMockToolServer,
} from '../../../src/mocks/tools/index.js';
import { INIT } from './sse-client.js';

let server: RunningMockToolServer | undefined;
const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
  await server?.close();
  server = undefined;
});

const KEY = 'sk-wirecheck-SECRET-0123456789';

test('a key sent in x-api-key and repeated in a tool argument is scrubbed from journalled bodies, in memory and in the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wc-journal-secrets-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'journal.jsonl');
  server = await startMockToolServer({}, { onEntry: journalFileWriter(file) });
  const origin = new URL(server.url).origin;
  const stream = await fetch(server.url, { headers: { 'x-api-key': KEY } });
  const reader = stream.body!.getReader();
  cleanup.push(() => reader.cancel());
  const { value } = await reader.read();
  const endpoint = new URL(/data: (\S+)/.exec(Buffer.from(value!).toString())![1]!, origin);
  const send = (body: unknown) =>
    fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify(body),
    });
  await send(INIT);
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: `my key is ${KEY}` } },
  });
  const deadline = Date.now() + 5000;
  while (!server.journal().some((e) => e.direction === 'sent' && (e.value as { id?: unknown })?.id === 2)) {
    if (Date.now() > deadline) throw new Error('the call was not answered');
    await new Promise((r) => setTimeout(r, 20));
  }
  const journal = server.journal();
  const call = journal.find((e) => e.direction === 'received' && (e.value as { id?: unknown })?.id === 2)!;
  expect(call.text).toContain('my key is [redacted]');
  expect(call.value).toMatchObject({ params: { arguments: { text: 'my key is [redacted]' } } });
  expect(JSON.stringify(journal)).not.toContain(KEY);
  expect(await readFile(file, 'utf8')).not.toContain(KEY);
});
