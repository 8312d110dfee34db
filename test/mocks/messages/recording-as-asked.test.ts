import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import type { RecordedResponse } from '../../../src/fixtures/index.js';
import { BUNDLED_LIBRARY_DIR, type MessagesExchange, parseFixtureText } from '../../../src/fixtures/index.js';
import {
  type MockMessagesService,
  recordingScenario,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import { recordingAsAsked } from '../../../src/mocks/messages/recording-as-asked.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';

// A recording converted to the mode the request asks for keeps what the real API put in
// it: a folded stream its citations, stop_details and container; a JSON message streamed
// its blocks of types the spec does not name.

const CITATION = {
  type: 'char_location',
  cited_text: 'Grass is green.',
  document_index: 0,
  document_title: 'Facts',
  start_char_index: 0,
  end_char_index: 15,
};
const STOP_DETAILS = { type: 'refusal', category: 'bio', explanation: null };
const CONTAINER = { id: 'container_011CQ', expires_at: '2030-01-01T00:00:00Z', skills: null };

/** A stream as the real API sends it: stop_details and container null at the start, final in message_delta. */
const REAL_STREAM = [
  {
    type: 'message_start',
    message: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 9, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Grass is ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'green.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: CITATION } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'refusal', stop_sequence: null, stop_details: STOP_DETAILS, container: CONTAINER },
    usage: { output_tokens: 6 },
  },
  { type: 'message_stop' },
];

function recorded(contentType: string, text: string): RecordedResponse {
  return {
    status: 200,
    headers: { 'content-type': contentType },
    headersAtMs: 0,
    chunks: [{ atMs: 1, text }],
    end: 'complete',
    endAtMs: 1,
  };
}

const WITH_THINKING = {
  id: 'msg_02',
  type: 'message',
  role: 'assistant',
  model: 'claude-x',
  content: [
    { type: 'thinking', thinking: 'The user says hi.', signature: 'EqQBCkYIARgCIkB' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
    { type: 'text', text: 'Hello!', citations: null },
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 12 },
};

describe('recordingAsAsked', () => {
  test('a streamed recording folded for a buffered request keeps citations, stop_details and container', () => {
    const reply = recordingAsAsked(
      recorded('text/event-stream', REAL_STREAM.map((e) => encodeEvent(e)).join('')),
      false,
    );
    expect(reply).toEqual({
      kind: 'message',
      message: {
        ...REAL_STREAM[0]!.message,
        content: [{ type: 'text', text: 'Grass is green.', citations: [CITATION] }],
        stop_reason: 'refusal',
        stop_details: STOP_DETAILS,
        container: CONTAINER,
        usage: { input_tokens: 9, output_tokens: 6 },
      },
    });
  });

  test('a JSON recording streamed for a streaming request keeps the blocks the spec does not name', () => {
    const reply = recordingAsAsked(recorded('application/json', JSON.stringify(WITH_THINKING)), true);
    expect(reply).toEqual({ kind: 'message', message: WITH_THINKING });
  });
});

describe('served by the mock', () => {
  let service: MockMessagesService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  test('the official SDK streaming a JSON recording gets every block of it, thinking included', async () => {
    const text = parseFixtureText(
      await readFile(join(BUNDLED_LIBRARY_DIR, 'text.json'), 'utf8'),
    ) as MessagesExchange;
    const exchange = { ...text, response: recorded('application/json', JSON.stringify(WITH_THINKING)) };
    service = await startMockMessagesService({
      scenario: recordingScenario([exchange], { speed: 0 }),
      apiKey: 'recording-key',
    });
    const client = new Anthropic({ apiKey: 'recording-key', baseURL: service.url, maxRetries: 0 });
    const { parsed_output: _, ...message } = await client.messages
      .stream({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message).toEqual(WITH_THINKING);
  });
});
