import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type MockMessagesService, startMockMessagesService } from '../../../src/mocks/messages/index.js';
import type { Message } from '../../../src/protocol/messages/index.js';
import { decodeFrames } from '../../../src/protocol/sse/index.js';
import { messagesBody } from './helpers.js';

// A reply with the fields the real API adds to a message (stop_details, container, a text
// block's citations) must reach a client streamed as it reaches it buffered. The official
// SDK 1.12 reads stop_details and container from message_delta only and builds citations
// from citations_delta (lib/MessageStream.js), as the real API streams them; the Vercel AI
// SDK reads them the same way.

const CITE_A = {
  type: 'char_location',
  cited_text: 'Grass is green.',
  document_index: 0,
  document_title: 'Facts',
  start_char_index: 0,
  end_char_index: 15,
};
const CITE_B = {
  type: 'web_search_result_location',
  cited_text: 'The sky is blue.',
  url: 'https://example.com/sky',
  title: 'Sky',
  encrypted_index: 'Eo8BCioIAhgBIiQ',
};

const CONTAINER = { id: 'container_011CQ', expires_at: '2030-01-01T00:00:00Z', skills: null };

const REPLY = {
  id: 'msg_final_fields',
  type: 'message',
  role: 'assistant',
  model: 'mock-model',
  content: [
    { type: 'text', text: 'Grass is green and the sky is blue — 你好.', citations: [CITE_A, CITE_B] },
    { type: 'text', text: ' I will not say more.', citations: null },
  ],
  stop_reason: 'refusal',
  stop_sequence: null,
  stop_details: { type: 'refusal', category: 'cyber', explanation: 'Not this one.' },
  container: CONTAINER,
  usage: { input_tokens: 12, output_tokens: 17 },
} as Message;

const params = {
  model: 'mock-model',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

let service: MockMessagesService;
let client: Anthropic;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('ANTHROPIC_')) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  }
  service = await startMockMessagesService({
    scenario: () => ({ kind: 'message', message: REPLY, splits: [[5, 20], undefined] }),
    apiKey: 'final-fields-key',
  });
  client = new Anthropic({ apiKey: 'final-fields-key', baseURL: service.url, maxRetries: 0 });
});
afterAll(async () => {
  await service.close();
  Object.assign(process.env, saved);
});

/** The events of a streamed answer, as the mock wrote them. */
async function streamedEvents(): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${service.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'final-fields-key' },
    body: JSON.stringify(messagesBody('hi', { stream: true })),
    signal: AbortSignal.timeout(5_000),
  });
  expect(res.status).toBe(200);
  const { frames } = decodeFrames([new Uint8Array(await res.arrayBuffer())]);
  return frames.map((f) => JSON.parse(f.data) as Record<string, unknown>);
}

describe("a reply's stop_details, container and citations, streamed as the real API streams them", () => {
  test('message_start holds stop_details and container as null; message_delta carries them', async () => {
    const events = await streamedEvents();
    const start = events[0] as { type: string; message: Record<string, unknown> };
    expect(start.type).toBe('message_start');
    expect(start.message).toMatchObject({ stop_reason: null, stop_details: null, container: null });
    const delta = events.find((e) => e.type === 'message_delta');
    expect(delta?.delta).toEqual({
      stop_reason: 'refusal',
      stop_sequence: null,
      stop_details: REPLY.stop_details,
      container: REPLY.container,
    });
  });

  test('a text block starts with an empty citations list; each citation follows its text as a citations_delta', async () => {
    const events = await streamedEvents();
    const ofBlock = (index: number) => events.filter((e) => e.index === index);
    expect(ofBlock(0)[0]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '', citations: [] },
    });
    const deltas = ofBlock(0).flatMap((e) => (e.type === 'content_block_delta' ? [e.delta] : []));
    expect(deltas.map((d) => (d as { type: string }).type)).toEqual([
      'text_delta',
      'text_delta',
      'text_delta',
      'citations_delta',
      'citations_delta',
    ]);
    expect(deltas.slice(3)).toEqual([
      { type: 'citations_delta', citation: CITE_A },
      { type: 'citations_delta', citation: CITE_B },
    ]);
    // A block whose citations are null starts with null and gets no citations_delta.
    expect(ofBlock(1)[0]).toMatchObject({ content_block: { type: 'text', text: '', citations: null } });
    expect(
      ofBlock(1).some((e) => (e.delta as { type?: string } | undefined)?.type === 'citations_delta'),
    ).toBe(false);
  });

  test('the official SDK gets the same message streamed as buffered, and both are the reply', async () => {
    const { parsed_output: _, ...streamed } = await client.messages.stream(params).finalMessage();
    const buffered = await client.messages.create(params);
    expect(buffered).toStrictEqual(REPLY);
    for (const field of ['stop_reason', 'stop_details', 'container', 'content'] as const) {
      expect({ [field]: streamed[field] }).toStrictEqual({ [field]: buffered[field] });
    }
    expect(streamed).toEqual(REPLY);
  });

  test('the Vercel AI SDK gets the same stop details, container and sources streamed as buffered', async () => {
    const warnings = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
    const before = warnings.AI_SDK_LOG_WARNINGS;
    warnings.AI_SDK_LOG_WARNINGS = false;
    try {
      const model = createAnthropic({ apiKey: 'final-fields-key', baseURL: `${service.url}/v1` })(
        'mock-model',
      );
      const call = { model, prompt: 'hi', maxOutputTokens: 1024, maxRetries: 0 };
      const buffered = await generateText(call);
      const streamed = streamText(call);
      const sources = (list: readonly { id: string }[]) => list.map(({ id: _, ...source }) => source);
      expect(buffered.providerMetadata?.anthropic).toMatchObject({
        stopDetails: REPLY.stop_details,
        container: { id: CONTAINER.id, expiresAt: CONTAINER.expires_at },
      });
      const meta = (await streamed.providerMetadata)?.anthropic;
      expect(meta?.stopDetails).toEqual(buffered.providerMetadata?.anthropic?.stopDetails);
      expect(meta?.container).toEqual(buffered.providerMetadata?.anthropic?.container);
      expect(sources(await streamed.sources)).toEqual(sources(buffered.sources));
      expect(sources(buffered.sources)).toMatchObject([{ sourceType: 'url', url: CITE_B.url }]);
    } finally {
      warnings.AI_SDK_LOG_WARNINGS = before;
    }
  });
});
