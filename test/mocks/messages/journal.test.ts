import { expect, test } from 'vitest';
import { Journal, type JournalEntry, JournalTimeoutError } from '../../../src/mocks/messages/index.js';

function entry(seq: number, patch: Partial<JournalEntry> = {}): JournalEntry {
  return {
    seq,
    requestId: `req_${seq}`,
    method: 'POST',
    url: '/v1/messages',
    headers: {},
    body: undefined,
    receivedAt: 0,
    receivedAtMono: 0,
    auth: 'x-api-key',
    configuredKeyIn: [],
    version: null,
    stream: false,
    framesWritten: 0,
    bytesWritten: 0,
    outcome: 'pending',
    clientAborted: false,
    ...patch,
  };
}

test('entries are kept in arrival order and clear empties the journal', () => {
  const j = new Journal();
  j.record(entry(0));
  j.record(entry(1));
  expect(j.entries().map((e) => e.seq)).toEqual([0, 1]);
  j.clear();
  expect(j.entries()).toEqual([]);
  expect(j.size).toBe(0);
});

test('onArrival sees each entry recorded after it, once, until it is stopped', () => {
  const j = new Journal();
  j.record(entry(0));
  const seen: number[] = [];
  const stop = j.onArrival((e) => seen.push(e.seq));
  j.record(entry(1));
  j.changed(entry(1));
  j.record(entry(2));
  stop();
  j.record(entry(3));
  expect(seen).toEqual([1, 2]);
});

test('waitFor resolves at once with an entry already recorded', async () => {
  const j = new Journal();
  j.record(entry(0, { status: 200 }));
  await expect(j.waitFor((e) => e.status === 200, 10)).resolves.toMatchObject({ seq: 0 });
});

test('waitFor resolves when a later update makes an entry match', async () => {
  const j = new Journal();
  const e = j.record(entry(0));
  const waiting = j.waitFor((x) => x.clientAborted, 1000);
  e.clientAborted = true;
  j.changed(e);
  await expect(waiting).resolves.toBe(e);
});

test('waitFor rejects with JournalTimeoutError saying how many entries it saw', async () => {
  const j = new Journal();
  j.record(entry(0));
  const error = await j.waitFor(() => false, 20).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(JournalTimeoutError);
  expect((error as Error).message).toBe('no journal entry matched within 20 ms (1 entries recorded)');
});

test('past its limit the journal forgets the oldest entries and counts them', () => {
  const j = new Journal(4);
  for (let i = 0; i < 11; i++) j.record(entry(i));
  expect(j.entries().map((e) => e.seq)).toEqual([7, 8, 9, 10]);
  expect(j.size).toBe(4);
  expect(j.dropped).toBe(7);
  const none = new Journal(0);
  none.record(entry(0));
  expect(none.entries()).toEqual([]);
  expect(none.dropped).toBe(1);
});
