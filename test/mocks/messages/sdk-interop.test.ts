import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type FaultPlan,
  type MockMessagesService,
  type Reply,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { eventsOfMessage } from '../../../src/protocol/messages/index.js';
import { SAMPLE, SAMPLE_SPLITS, WITH_OTHER_BLOCKS } from './helpers.js';

// The official SDK 1.12 (dev dependency) against the mock: it must reduce every
// survivable fault to the same final message. The `observed` tests pin down where the
// SDK departs from the spec (docs/sdk-divergences.md), so an SDK change shows up here.

let service: MockMessagesService;
let client: Anthropic;
const saved: Record<string, string | undefined> = {};
const sampleReply: Reply = { kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS };
const params = {
  model: 'mock-model',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

beforeAll(async () => {
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('ANTHROPIC_')) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  }
  service = await startMockMessagesService({ scenario: () => sampleReply, apiKey: 'sdk-test-key' });
  client = new Anthropic({ apiKey: 'sdk-test-key', baseURL: service.url, maxRetries: 0 });
});
afterAll(async () => {
  await service.close();
  Object.assign(process.env, saved);
});
afterEach(() => {
  service.setFaults(undefined);
  service.setScenario(() => sampleReply);
  service.journal.clear();
});

/** The final message (without the helper's own `parsed_output`) and the event types the SDK yielded. */
async function streamed(faults?: FaultPlan, sdk = client) {
  service.setFaults(faults && { seed: 9, ...faults });
  const stream = sdk.messages.stream(params);
  const events: string[] = [];
  stream.on('streamEvent', (event) => events.push(event.type));
  const { parsed_output: _, ...message } = await stream.finalMessage();
  return { message, events };
}

describe('the SDK reduces every survivable fault to the scripted message', () => {
  const faults: [string, FaultPlan | undefined][] = [
    ['no fault', undefined],
    ['random re-chunking', { chunking: { mode: 'random', minBytes: 1, maxBytes: 9 } }],
    ['1-byte chunks', { chunking: { mode: 'fixed', size: 1 } }],
    ['cuts inside UTF-8 characters', { splitUtf8: true, chunking: { mode: 'random' } }],
    ['CRLF cut between CR and LF', { lineEnding: 'crlf', splitCrLf: true, chunking: { mode: 'random' } }],
    ['lone CR', { lineEnding: 'cr', chunking: { mode: 'random' } }],
    ['pings, one before message_start', { pings: { at: [0, 5], rate: 0.3 } }],
    ['comments', { comments: { at: [0, 4], rate: 0.3 } }],
    ['per-frame delays', { delayMs: 2 }],
    ['a pause with keep-alive pings', { stall: { afterFrame: 2, ms: 50 }, keepAliveMs: 10 }],
    ['multi-line data', { multiLineData: true }],
  ];
  test.each(faults)('%s', async (_name, plan) => {
    const { message } = await streamed(plan);
    expect(message).toEqual(SAMPLE);
  });

  test('the buffered call gets the same message', async () => {
    expect(await client.messages.create(params)).toStrictEqual(SAMPLE);
  });
});

describe('blocks the spec does not describe, streamed as the real API streams them', () => {
  test('the SDK rebuilds thinking (with its signature), redacted_thinking and server tool blocks from the stream', async () => {
    service.setScenario(() => ({
      kind: 'message',
      message: WITH_OTHER_BLOCKS,
      splits: [[3, 9], undefined, [4]],
    }));
    const { message, events } = await streamed();
    expect(message).toEqual(WITH_OTHER_BLOCKS);
    expect(events.at(-1)).toBe('message_stop');
    expect(await client.messages.create(params)).toEqual(WITH_OTHER_BLOCKS);
  });
});

describe('what the SDK sends', () => {
  test('SDK 1.12 authenticates with Authorization: Bearer and sends anthropic-version 2026-10-21', async () => {
    await streamed();
    const entry = service.journal.entries()[0]!;
    expect(entry.auth).toBe('bearer');
    expect(entry.version).toEqual({ header: 'anthropic-version', value: '2026-10-21' });
    expect(entry.headers.accept).toBe('application/json');
    expect(entry.stream).toBe(true);
  });

  test('a 529 with retry-after-ms is retried, and the retry succeeds', async () => {
    const retrying = new Anthropic({ apiKey: 'sdk-test-key', baseURL: service.url, maxRetries: 1 });
    const { message } = await streamed({ httpError: { status: 529, times: 1, retryAfterMs: 10 } }, retrying);
    expect(message).toEqual(SAMPLE);
    const entries = service.journal.entries();
    expect(entries.map((e) => e.status)).toEqual([529, 200]);
    expect(entries.map((e) => e.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });
});

describe('observed: where SDK 1.12 departs from the spec', () => {
  test('a stream without message_stop is refused, as the spec asks', async () => {
    await expect(streamed({ omitMessageStop: true })).rejects.toThrow(
      'stream ended without producing a Message with role=assistant',
    );
  });

  test('the event name is ignored: data.type decides (unless the name is ping or error)', async () => {
    const { message } = await streamed({ malformed: [{ atFrame: 3, kind: 'type-mismatch' }] });
    expect(message).toEqual(SAMPLE);
    const renamedToPing = await streamed({
      malformed: [{ atFrame: 3, kind: 'type-mismatch', eventName: 'ping' }],
    });
    expect(renamedToPing.message).not.toEqual(SAMPLE);
  });

  test('a data-only frame (no event line) is skipped silently, losing its delta', async () => {
    const { message } = await streamed({ malformed: [{ atFrame: 3, kind: 'no-event-line' }] });
    // Frame 3 is the second text delta: characters 3 to 9 of the block.
    const original = (SAMPLE.content[0] as { text: string }).text;
    expect((message.content[0] as { text: string }).text).toBe(original.slice(0, 3) + original.slice(9));
  });

  test('unknown events are yielded and ignored by the accumulator', async () => {
    const { message, events } = await streamed({ unknownEvents: { at: [2], name: 'future_event' } });
    expect(events).toContain('future_event');
    expect(message).toEqual(SAMPLE);
  });

  test('tool input JSON cut short is completed silently instead of refused (Events rule 3)', async () => {
    const events = eventsOfMessage(SAMPLE, [undefined, [4, 12]]).map((e) =>
      e.type === 'content_block_delta' &&
      e.delta.type === 'input_json_delta' &&
      e.delta.partial_json.endsWith('}')
        ? { ...e, delta: { ...e.delta, partial_json: e.delta.partial_json.slice(0, -1) } }
        : e,
    );
    service.setScenario(() => ({ kind: 'raw', frames: events }));
    const { message } = await streamed();
    expect(message.content[1]).toEqual(SAMPLE.content[1]);
  });

  test('invalid JSON data rejects the stream', async () => {
    await expect(streamed({ malformed: [{ atFrame: 3, kind: 'invalid-json' }] })).rejects.toThrow();
  });

  test('an error event mid-stream is an APIError without status, typed by the body, not retried', async () => {
    const error = await streamed({ errorEvent: { atFrame: 3 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBeUndefined();
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect(error).not.toBeInstanceOf(Anthropic.InternalServerError);
    expect(service.journal.size).toBe(1);
  });

  test('a connection cut mid-stream rejects with "terminated" and is not retried', async () => {
    const retrying = new Anthropic({ apiKey: 'sdk-test-key', baseURL: service.url, maxRetries: 2 });
    service.setFaults({ disconnectAfterFrame: 4 });
    await expect(retrying.messages.stream(params).finalMessage()).rejects.toThrow('terminated');
    expect(service.journal.size).toBe(1);
  });
});
