import { readFile } from 'node:fs/promises';
import { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { BUNDLED_LIBRARY_DIR, type MessagesExchange, parseFixtureText } from '../../../src/fixtures/index.js';
import {
  createMockMessagesApp,
  type JournalEntry,
  type MockMessagesOptions,
  recordingScenario,
  type Scenario,
} from '../../../src/mocks/messages/index.js';
import { KEY, messagesBody, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

/*
 * A stream the mock cannot serve for a failure of its own, once its reply is hijacked, must
 * still end: the connection cut and the journal entry saying why (streamError), which is how
 * the suites tell the mock's failure from the client's. Before, a failure outside the write
 * loop left the request hanging and its entry pending.
 */

/** Long enough for a cut connection to be seen; short of a hung request (the test's own timeout). */
const SETTLE_MS = 4_000;

const started: { close: () => Promise<unknown> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function listening(opts: MockMessagesOptions) {
  const made = createMockMessagesApp({ host: '127.0.0.1', ...opts });
  started.push(made.app);
  return made;
}

async function urlOf(app: Awaited<ReturnType<typeof listening>>['app']): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A streamed request, read to its end or its cut (bounded); what it came to. */
async function streamed(url: string): Promise<{ status?: number; cut: boolean }> {
  try {
    const res = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: KEY,
      body: JSON.stringify(messagesBody('hi', { stream: true })),
      signal: AbortSignal.timeout(SETTLE_MS),
    });
    try {
      await res.arrayBuffer();
      return { status: res.status, cut: false };
    } catch {
      return { status: res.status, cut: true };
    }
  } catch {
    return { cut: true };
  }
}

const settled = (entry: JournalEntry) => entry.outcome !== 'pending';

test('a failure after the 200 headers, before the first frame: the stream is cut and the journal says why', async () => {
  const { app, state } = await listening({
    scenario: () => ({ kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS }),
  });
  vi.spyOn(state.streamCache, 'steps').mockImplementation(() => {
    throw new Error('the cache broke');
  });
  const url = await urlOf(app);
  // The headers may not have left the process yet (Node sends them with the first write).
  expect((await streamed(url)).cut).toBe(true);
  const entry = await state.journal.waitFor(settled, SETTLE_MS);
  expect(entry.outcome).toBe('disconnected');
  expect(entry.status).toBe(200);
  expect(entry.streamError).toBe("the mock could not stream the scenario's reply: the cache broke");
});

test.each([
  {
    what: 'the headers of a stream',
    scenario: async (): Promise<Scenario> => () => ({
      kind: 'message',
      message: SAMPLE,
      splits: SAMPLE_SPLITS,
    }),
    streamError: "the mock could not stream the scenario's reply: no headers today",
  },
  {
    what: 'the recorded headers of a replay',
    scenario: async (): Promise<Scenario> => {
      const text = parseFixtureText(
        await readFile(join(BUNDLED_LIBRARY_DIR, 'text.json'), 'utf8'),
      ) as MessagesExchange;
      return recordingScenario([text], { speed: 0 });
    },
    streamError: 'the mock could not replay the recorded response: no headers today',
  },
])('a failure writing $what: no headers, the connection cut, the journal says why', async (c) => {
  const { app, state } = await listening({ scenario: await c.scenario() });
  const url = await urlOf(app);
  vi.spyOn(ServerResponse.prototype, 'writeHead').mockImplementationOnce(() => {
    throw new Error('no headers today');
  });
  expect(await streamed(url)).toEqual({ cut: true });
  const entry = await state.journal.waitFor(settled, SETTLE_MS);
  expect(entry.outcome).toBe('disconnected');
  expect(entry.status).toBeUndefined();
  expect(entry.streamError).toBe(c.streamError);
});

test("a journal waiter whose predicate throws is rejected with its error; the mock's stream goes on", async () => {
  const { app, state } = await listening({
    scenario: () => ({ kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS }),
  });
  const url = await urlOf(app);
  const broken = state.journal.waitFor((entry) => {
    if (entry.status === 200) throw new TypeError('the waiter broke');
    return false;
  }, SETTLE_MS);
  const rejected = broken.then(
    () => undefined,
    (e: unknown) => e,
  );
  const done = state.journal.waitFor((entry) => entry.outcome === 'completed', SETTLE_MS);
  expect(await streamed(url)).toEqual({ status: 200, cut: false });
  expect(await rejected).toEqual(new TypeError('the waiter broke'));
  const entry = await done;
  expect(entry.streamError).toBeUndefined();
  expect(entry.framesWritten).toBeGreaterThan(0);
});

test("an error after a route's headers went out: the connection is cut, the journal says why", async () => {
  const { app, state } = await listening({});
  app.get('/v1/models', async (_request, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'application/json' });
    reply.raw.write('{');
    throw new Error('half a list');
  });
  const url = await urlOf(app);
  const res = await fetch(`${url}/v1/models`, { headers: KEY, signal: AbortSignal.timeout(SETTLE_MS) });
  expect(res.status).toBe(200);
  await expect(res.text()).rejects.toThrow();
  const entry = await state.journal.waitFor(settled, SETTLE_MS);
  expect(entry.outcome).toBe('disconnected');
  expect(entry.status).toBe(200);
  expect(entry.streamError).toBe('the mock failed after its headers went out: half a list');
});
