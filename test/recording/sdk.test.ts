import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bytesOfChunk, validateFixture } from '../../src/fixtures/index.js';
import {
  type MockMessagesService,
  type Reply,
  recordingScenario,
  startMockMessagesService,
} from '../../src/mocks/messages/index.js';
import { type RecordingProxy, startRecordingProxy } from '../../src/recording/index.js';

// The official SDK (1.x) streaming through the recording proxy must see exactly what it
// sees without it, and the recording of that exchange must replay to the same message.

const KEY = 'sdk-proxy-key-0123456789';
const reply: Reply = {
  kind: 'message',
  message: {
    id: 'msg_sdk_proxy',
    type: 'message',
    role: 'assistant',
    model: 'mock-model',
    content: [
      { type: 'text', text: 'Listing — ☃ files now.' },
      { type: 'tool_use', id: 'toolu_sdk', name: 'bash', input: { command: 'ls -la' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 30, output_tokens: 12 },
  },
  splits: [
    [4, 9],
    [3, 11],
  ],
  faults: { delayMs: 2 },
};
const params = {
  model: 'mock-model',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'list files' }],
};

let mock: MockMessagesService;
let proxy: RecordingProxy;
let replayService: MockMessagesService | undefined;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('ANTHROPIC_')) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  }
  mock = await startMockMessagesService({ scenario: () => reply, apiKey: KEY });
  proxy = await startRecordingProxy({ upstream: mock.url });
});
afterAll(async () => {
  await replayService?.close();
  await proxy.close();
  await mock.close();
  Object.assign(process.env, saved);
});

async function finalMessage(baseURL: string) {
  const client = new Anthropic({ apiKey: KEY, baseURL, maxRetries: 0 });
  const { parsed_output: _, ...message } = await client.messages.stream(params).finalMessage();
  return message;
}

describe('the official SDK through the recording proxy', () => {
  test('gets the same final message as without the proxy, and the recording replays to it', async () => {
    const direct = await finalMessage(mock.url);
    const proxied = await finalMessage(proxy.url);
    expect(proxied).toEqual(direct);
    await proxy.settled();
    const exchange = proxy.exchanges[proxy.exchanges.length - 1]!;
    expect(exchange.request.headers.authorization).toBe('Bearer [redacted]');
    expect(Buffer.concat(exchange.response.chunks.map(bytesOfChunk)).includes(KEY)).toBe(false);
    expect(validateFixture(exchange)).toMatchObject({ ok: true, recorded: [] });
    replayService = await startMockMessagesService({ scenario: recordingScenario([exchange], { speed: 0 }) });
    expect(await finalMessage(replayService.url)).toEqual(direct);
  });
});
