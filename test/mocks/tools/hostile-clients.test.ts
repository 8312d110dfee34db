import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  followJournalFile,
  journalFileWriter,
  type RunningMockToolServer,
  readJournalFile,
  startMockToolServer,
  ToolJournal,
} from '../../../src/mocks/tools/index.js';
import { openStalledStream } from '../../servers/http/stalled-reader.js';
import { INIT, openStream, post } from './sse-client.js';

let server: RunningMockToolServer | undefined;
const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
  await server?.close();
  server = undefined;
});

const call = (id: number, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: args },
});

async function eventually(test: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('mock tool server: a client that stops reading its stream', () => {
  test('is cut off once its queued replies pass the bound, and its session forgotten; others go on', async () => {
    const log: string[] = [];
    server = await startMockToolServer({}, { sessionQueueLimit: 1024 * 1024, log: (l) => log.push(l) });
    const origin = new URL(server.url).origin;
    const healthy = await openStream(server.url);
    cleanup.push(() => healthy.close());
    const healthyUrl = new URL((await healthy.next((f) => f.event === 'endpoint')).data, origin).href;
    const stalled = await openStalledStream(Number(new URL(server.url).port));
    cleanup.push(() => stalled.destroy());
    const url = new URL(stalled.endpoint, origin).href;
    const text = 'z'.repeat(200 * 1024);
    let refusedAt = -1;
    for (let i = 0; i < 400 && refusedAt < 0; i++) {
      const res = await post(url, call(i + 1, { text }));
      if (res.status === 400) {
        expect(((await res.json()) as { error: string }).error).toContain('is closed');
        refusedAt = i;
      } else {
        expect(res.status).toBe(202);
        await res.arrayBuffer();
      }
      // The reply goes out after the POST is answered (setImmediate): let it be written.
      await new Promise((r) => setImmediate(r));
    }
    // Without a bound all 400 replies (80 MiB) were queued for a client that reads nothing.
    expect(refusedAt).toBeGreaterThan(0);
    expect(log.join('\n')).toMatch(/stopped reading its event stream/);
    expect((await post(healthyUrl, call(9, { text: 'fine' }))).status).toBe(202);
    const reply = JSON.parse((await healthy.next((f) => f.event === 'message')).data);
    expect(reply).toMatchObject({ id: 9, result: { content: [{ text: '{"text":"fine"}' }] } });
  });
});

describe('mock tool server: what a client can learn or reach of other sessions', () => {
  test('session ids are random UUIDs, different for the same scenario and seed', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      server = await startMockToolServer({ seed: 7 });
      const stream = await openStream(server.url);
      const endpoint = (await stream.next((f) => f.event === 'endpoint')).data;
      ids.push(new URL(endpoint, 'http://x').searchParams.get('sessionId') ?? '');
      stream.close();
      await server.close();
      server = undefined;
    }
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[1]).not.toBe(ids[0]);
  });

  test('the id of the old scheme (wc-<seed hash>-<index>) names no session: 400', async () => {
    server = await startMockToolServer({ seed: 0 });
    const stream = await openStream(server.url);
    cleanup.push(() => stream.close());
    await stream.next((f) => f.event === 'endpoint');
    const origin = new URL(server.url).origin;
    for (const guess of ['wc-00000000-0', 'wc-0-0', '0']) {
      expect((await post(`${origin}/messages?sessionId=${guess}`, INIT)).status).toBe(400);
    }
  });

  test('a Host that is not a loopback name is 403, and so is an Origin of another site', async () => {
    server = await startMockToolServer();
    const rebind = await fetch(server.url.replace('127.0.0.1', 'localhost'), {
      headers: { host: 'attacker.example' },
    }).catch(() => undefined);
    // fetch may refuse to override Host; raw node:http does not.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(server!.url, { headers: { host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    await rebind?.body?.cancel();
    expect(status).toBe(403);
    const other = await fetch(`${new URL(server.url).origin}/messages?sessionId=x`, {
      method: 'POST',
      headers: { origin: 'https://attacker.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: string }).error).toContain('Origin');
  });
});

describe('mock tool server journal: no credentials, bounded', () => {
  test('credential headers and query parameters are redacted in the journal and in the journal file, which is 0600', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wc-journal-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'journal.jsonl');
    await writeFile(file, '', { mode: 0o644 });
    server = await startMockToolServer({}, { onEntry: journalFileWriter(file) });
    const origin = new URL(server.url).origin;
    const stream = await fetch(`${server.url}?token=tok-SECRET-123456`, {
      headers: { authorization: 'Bearer SECRET-BEARER-123456', cookie: 'sid=SECRET-COOKIE-123456' },
    });
    const reader = stream.body!.getReader();
    cleanup.push(() => reader.cancel());
    const { value } = await reader.read();
    const endpoint = /data: (\S+)/.exec(Buffer.from(value!).toString())![1]!;
    await fetch(new URL(endpoint, origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'SECRET-KEY-123456789' },
      body: JSON.stringify(INIT),
    });
    await eventually(() => server!.journal().some((e) => e.direction === 'sent' && e.kind === 'message'));
    const journal = server.journal();
    const open = journal.find((e) => e.kind === 'stream-open')!;
    expect(open.http?.headers?.authorization).toBe('Bearer [redacted]');
    expect(open.http?.headers?.cookie).toBe('[redacted]');
    expect(open.http?.url).toBe('/sse?token=[redacted]');
    const posted = journal.find((e) => e.direction === 'received' && e.kind === 'message')!;
    expect(posted.http?.headers?.['x-api-key']).toBe('[redacted]');
    const text = await readFile(file, 'utf8');
    expect(text).not.toMatch(/SECRET/);
    expect((await readJournalFile(file)).length).toBe(journal.length);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(journal)).not.toMatch(/SECRET/);
  });

  test('a journal file stops at its size with a journal-full line, keeping the start; reading one is bounded too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wc-journal-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'journal.jsonl');
    const journal = new ToolJournal(journalFileWriter(file, 10_000));
    for (let i = 0; i < 1_000; i++)
      journal.record({
        session: 's',
        transport: 'stdio',
        direction: 'received',
        kind: 'message',
        text: `"${i}"`,
      });
    expect((await stat(file)).size).toBeLessThan(10_000 + 500);
    const kept = await readJournalFile(file);
    expect(kept[0]!.text).toBe('"0"');
    const last = kept.at(-1)!;
    expect(last.kind).toBe('journal-full');
    expect(last.text).toBe(
      `journal file full (10000 bytes): entry ${kept.length - 1} and later ones were not written`,
    );
    // A reader given less than the file reads that much, and drops the line it cut.
    const head = await readJournalFile(file, 1_000);
    expect(head.length).toBeGreaterThan(0);
    expect(head.length).toBeLessThan(kept.length);
    expect(head.map((e) => e.seq)).toEqual(kept.slice(0, head.length).map((e) => e.seq));
  });

  test('a journal file is followed as another process appends to it: whole entries, a character cut between looks kept whole, and the whole journal at the end', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wc-journal-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'journal.jsonl');
    const seen: string[] = [];
    const stop = followJournalFile(file, (entry) => seen.push(entry.text), 10);
    cleanup.push(async () => {
      await stop();
    });
    const line = (text: string) =>
      `${JSON.stringify({ seq: 0, at: 0, atMs: 0, session: 's', transport: 'stdio', direction: 'received', kind: 'message', text })}\n`;
    const bytes = Buffer.from(line('hello 👋') + line('second'));
    const cut = bytes.indexOf(Buffer.from('👋')) + 2;
    await writeFile(file, bytes.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
    await appendFile(file, bytes.subarray(cut));
    await appendFile(file, 'not json\n');
    await eventually(() => seen.length === 2);
    await appendFile(file, line('written last, read by the last look'));
    const journal = await stop();
    expect(seen).toEqual(['hello 👋', 'second', 'written last, read by the last look']);
    expect(journal.map((e) => e.text)).toEqual(seen);
    expect(journal).toEqual(await readJournalFile(file));
  });

  test('a journal keeps at most its count and bytes (oldest forgotten) and cuts a long message with its size', () => {
    const journal = new ToolJournal(undefined, { entries: 5, totalBytes: 1_000_000, bodyBytes: 100 });
    for (let i = 0; i < 8; i++)
      journal.record({
        session: 's',
        transport: 'stdio',
        direction: 'received',
        kind: 'message',
        text: `${i}`,
      });
    expect(journal.entries().map((e) => e.text)).toEqual(['3', '4', '5', '6', '7']);
    expect(journal.entries()[0]!.seq).toBe(3);
    expect(journal.dropped).toBe(3);
    const long = journal.record({
      session: 's',
      transport: 'stdio',
      direction: 'received',
      kind: 'message',
      text: `"${'é'.repeat(100)}"`,
      value: 'x',
    });
    expect(long.truncated).toEqual({ bytes: 202 });
    expect(Buffer.byteLength(long.text)).toBeLessThanOrEqual(100);
    expect('value' in long).toBe(false);
    const bytes = new ToolJournal(undefined, { totalBytes: 10_000, bodyBytes: 4_000 });
    for (let i = 0; i < 50; i++)
      bytes.record({
        session: 's',
        transport: 'stdio',
        direction: 'sent',
        kind: 'message',
        text: 'x'.repeat(1_000),
      });
    expect(bytes.size).toBeLessThan(10);
    expect(bytes.size).toBeGreaterThan(0);
  });

  test('a POST nested deeper than 1,000 levels is journaled as text with a parse error, never parsed', async () => {
    server = await startMockToolServer();
    const stream = await openStream(server.url);
    cleanup.push(() => stream.close());
    const endpoint = (await stream.next((f) => f.event === 'endpoint')).data;
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    expect((await post(new URL(endpoint, new URL(server.url).origin).href, deep)).status).toBe(202);
    const reply = JSON.parse((await stream.next((f) => f.event === 'message')).data);
    expect(reply).toMatchObject({ id: null, error: { code: -32700 } });
    const entry = server.journal().find((e) => e.direction === 'received' && e.kind === 'message')!;
    expect(entry.parseError).toContain('nested more than 1000 levels deep');
    expect(entry.value).toBeUndefined();
  });
});
