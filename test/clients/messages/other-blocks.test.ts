import { afterAll, beforeAll, expect, test } from 'vitest';
import { MessagesClient } from '../../../src/clients/messages/index.js';
import { type MockMessagesService, startMockMessagesService } from '../../../src/mocks/messages/index.js';
import { Message } from '../../../src/protocol/messages/index.js';
import { WITH_OTHER_BLOCKS } from '../../mocks/messages/helpers.js';

// The real API adds block types the spec does not describe (thinking, server tools); the
// mock streams them as the real API does, and the reference client skips them (docs/levels.md).

let service: MockMessagesService;
let client: MessagesClient;

beforeAll(async () => {
  service = await startMockMessagesService({
    scenario: () => ({ kind: 'message', message: WITH_OTHER_BLOCKS, splits: [[3, 9], undefined, [4]] }),
  });
  client = new MessagesClient({ env: { WIRECHECK_BASE_URL: service.url, WIRECHECK_API_KEY: 'sk-test' } });
});
afterAll(() => service.close());

const request = { model: 'm', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };

test('a streamed reply with blocks of other types reduces to the message without them, as the buffered one does', async () => {
  const withoutThem = Message.parse(WITH_OTHER_BLOCKS);
  expect(withoutThem.content).toEqual([{ type: 'text', text: 'Done.' }]);
  const stream = client.stream(request);
  const deltas: string[] = [];
  for await (const event of stream) if (event.type === 'content_block_delta') deltas.push(event.delta.type);
  expect(deltas).toContain('thinking_delta');
  expect(deltas).toContain('signature_delta');
  expect(await stream.finalMessage()).toEqual(withoutThem);
  expect(await client.create(request)).toEqual(withoutThem);
});
