import { describe, expect, test } from 'vitest';
import { createMockMessagesApp, scriptScenarioOfJson } from '../../../src/mocks/messages/index.js';
import { decodeChunks, KEY, messagesBody } from './helpers.js';

const textReply = (text: string) => ({
  kind: 'message' as const,
  message: { content: [{ type: 'text' as const, text }] },
});

type App = ReturnType<typeof createMockMessagesApp>['app'];

/** Status and error type, or status and text, of each answer to `count` identical requests. */
async function answers(app: App, count: number, stream = false): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: KEY,
      payload: messagesBody('hi', stream ? { stream: true } : {}),
    });
    if (res.statusCode !== 200) {
      out.push(`${res.statusCode} ${JSON.parse(res.body).error.type}`);
      continue;
    }
    const message = stream ? decodeChunks([res.body]).message : JSON.parse(res.body);
    out.push(`200 ${message?.content[0]?.text}`);
  }
  return out;
}

describe("the service's HTTP error fault uses up no scripted reply", () => {
  test('429 once: the retry gets the first reply, the next request the second', async () => {
    const { app, state } = createMockMessagesApp({
      scenario: scriptScenarioOfJson([textReply('first'), textReply('second')]),
      faults: { httpError: { status: 429, times: 1, retryAfterS: 0 } },
    });
    expect(await answers(app, 3)).toEqual(['429 rate_limit_error', '200 first', '200 second']);
    expect(state.journal.entries().map((e) => e.status)).toEqual([429, 200, 200]);
    await app.close();
  });

  test('529 twice on streamed requests: both retries still get the script in order', async () => {
    const { app } = createMockMessagesApp({
      scenario: scriptScenarioOfJson([textReply('first'), textReply('second')]),
      faults: { httpError: { status: 529, times: 2, retryAfterMs: 0 } },
    });
    expect(await answers(app, 4, true)).toEqual([
      '529 overloaded_error',
      '529 overloaded_error',
      '200 first',
      '200 second',
    ]);
    await app.close();
  });

  test("a reply's own HTTP error is still served for that reply", async () => {
    const { app } = createMockMessagesApp({
      scenario: scriptScenarioOfJson([
        { ...textReply('first'), faults: { httpError: { status: 500 } } },
        textReply('second'),
      ]),
    });
    expect(await answers(app, 2)).toEqual(['500 api_error', '200 second']);
    await app.close();
  });
});
