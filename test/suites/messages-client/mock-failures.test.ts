import { afterEach, expect, test } from 'vitest';
import { HarnessBug } from '../../../src/harness/check.js';
import {
  type MockMessagesService,
  type Reply,
  type Scenario,
  startMockMessagesService,
} from '../../../src/mocks/messages/index.js';
import type { Message } from '../../../src/protocol/messages/index.js';
import { helloMessage } from '../../../src/suites/messages-client/context.js';
import { watchScenario } from '../../../src/suites/messages-mock-failures.js';

const KEY = 'sk-wc-test-mock-failures';
const BODY = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

const started: MockMessagesService[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((m) => m.close()));
});

/** Serve `scenario` watched, send `requests` bodies one after the other, and judge the journal. */
async function judge(
  scenario: Scenario,
  bodies: readonly object[] = [BODY],
  admit?: (body: unknown) => boolean,
): Promise<{ bug: HarnessBug | undefined; statuses: (number | undefined)[] }> {
  const watched = watchScenario(scenario, 'case under test');
  const mock = await startMockMessagesService({
    apiKey: KEY,
    scenario: watched.scenario,
    ...(admit && { admit }),
  });
  started.push(mock);
  for (const body of bodies) {
    // A cut stream rejects the read; the journal says what the mock did.
    await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    })
      .then((res) => res.text())
      .catch(() => undefined);
  }
  // The journal entry of a cut stream is finished after the client saw the cut.
  await mock.journal.waitFor(() => mock.journal.entries().every((e) => e.outcome !== 'pending'), 5000);
  const entries = mock.journal.entries();
  return { bug: watched.failureIn(entries), statuses: entries.map((e) => e.status) };
}

const always =
  (reply: Reply): Scenario =>
  () =>
    reply;

/** A message whose encoding throws (JSON cannot hold a BigInt): the mock cannot serve it. */
function unencodable(): Message {
  const message = helloMessage();
  return { ...message, content: [{ type: 'text', text: 'x', meta: 1n } as never] };
}

test('a scenario that throws is a harness bug naming the request, not a 500 for the client to be judged on', async () => {
  const { bug, statuses } = await judge(() => {
    throw new Error('scripted model broke');
  });
  expect(statuses).toEqual([500]);
  expect(bug).toBeInstanceOf(HarnessBug);
  expect(bug?.message).toMatch(
    /^case under test: the mock messages service failed on its own at request 1 \(POST \/v1\/messages, request-id req_\w+\): the case's scenario threw \(Error: scripted model broke\)/,
  );
});

test('a 500 api_error the scenario scripts, as an error reply or as an HTTP fault, is no harness bug', async () => {
  const scripted = await judge(always({ kind: 'error', status: 500, errorType: 'api_error' }));
  expect(scripted).toEqual({ bug: undefined, statuses: [500] });
  const fault = await judge(
    always({ kind: 'message', message: helloMessage(), faults: { httpError: { status: 500, times: 1 } } }),
    [BODY, BODY],
  );
  expect(fault).toEqual({ bug: undefined, statuses: [500, 200] });
  // 529 overloaded_error, scripted: the retry checks' answer.
  const overloaded = await judge(always({ kind: 'error', status: 529, errorType: 'overloaded_error' }));
  expect(overloaded).toEqual({ bug: undefined, statuses: [529] });
});

test('a 500 the mock answers for a reply it cannot serve is a harness bug', async () => {
  const { bug, statuses } = await judge(
    always({ kind: 'message', message: { ...helloMessage(), content: 'not blocks' } as never }),
  );
  expect(statuses).toEqual([500]);
  expect(bug?.message).toContain("it answered HTTP 500 api_error, which the case's scenario did not script");
});

test('an error inside the mock before the scenario (its 500 "internal error") is a harness bug', async () => {
  // `admit` is asked about a body the mock refuses: one that throws is an error inside the mock.
  const { bug, statuses } = await judge(
    always({ kind: 'message', message: helloMessage() }),
    [{ ...BODY, max_tokens: 0 }],
    () => {
      throw new TypeError('admit broke');
    },
  );
  expect(statuses).toEqual([500]);
  expect(bug).toBeInstanceOf(HarnessBug);
});

test('a buffered reply the mock cannot encode (500) and a stream it cuts (streamError) are harness bugs', async () => {
  const buffered = await judge(always({ kind: 'message', message: unencodable() }));
  expect(buffered.statuses).toEqual([500]);
  expect(buffered.bug).toBeInstanceOf(HarnessBug);
  const streamed = await judge(always({ kind: 'message', message: unencodable() }), [
    { ...BODY, stream: true },
  ]);
  expect(streamed.statuses).toEqual([200]);
  expect(streamed.bug?.message).toMatch(
    /at request 1 .*: the mock could not stream the scenario's reply: .*BigInt/,
  );
});

test('refusals of the client and answers served whole are no harness bug', async () => {
  const { bug, statuses } = await judge(always({ kind: 'message', message: helloMessage() }), [
    BODY,
    { ...BODY, max_tokens: 'many' },
    { ...BODY, stream: true },
  ]);
  expect(statuses).toEqual([200, 400, 200]);
  expect(bug).toBeUndefined();
});
