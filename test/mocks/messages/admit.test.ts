import { expect, test } from 'vitest';
import { createMockMessagesApp, scriptScenario } from '../../../src/mocks/messages/index.js';
import { KEY, messagesBody, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

// The `admit` option: a body the real API refuses is served when admit says so, and the
// journal says why the real API would have refused it.

async function post(admit: ((body: unknown) => boolean) | undefined, payload: object) {
  const seen: unknown[] = [];
  const { app, state } = createMockMessagesApp({
    scenario: (request, ctx) => {
      seen.push(request);
      return scriptScenario([{ kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS }])(request, ctx);
    },
    ...(admit === undefined ? {} : { admit }),
  });
  const res = await app.inject({ method: 'POST', url: '/v1/messages', headers: KEY, payload });
  await app.close();
  return { res, entry: state.journal.entries()[0]!, seen };
}

const ZERO_TOKENS = messagesBody('hi', { max_tokens: 0 });

test('without admit, a body the real API refuses gets 400 and never reaches the scenario', async () => {
  const { res, entry, seen } = await post(undefined, ZERO_TOKENS);
  expect(res.statusCode).toBe(400);
  expect(entry.bodyError).toMatch(/max_tokens/);
  expect(entry.realApiRefusal).toBeUndefined();
  expect(seen).toEqual([]);
});

test('a body admit accepts is served as it came, and the journal records why the real API would refuse it', async () => {
  const offered: unknown[] = [];
  const { res, entry, seen } = await post((body) => {
    offered.push(body);
    return true;
  }, ZERO_TOKENS);
  expect(res.statusCode).toBe(200);
  expect(JSON.parse(res.body).content).toEqual(SAMPLE.content);
  expect(entry.status).toBe(200);
  expect(entry.bodyError).toBeUndefined();
  expect(entry.realApiRefusal).toMatch(/max_tokens/);
  expect(offered).toEqual([ZERO_TOKENS]);
  expect(seen).toEqual([ZERO_TOKENS]);
});

test('a body admit turns down is refused as without it; a valid body is never offered to admit', async () => {
  const offered: unknown[] = [];
  const refuse = (body: unknown) => {
    offered.push(body);
    return false;
  };
  const refused = await post(refuse, ZERO_TOKENS);
  expect(refused.res.statusCode).toBe(400);
  expect(refused.entry.bodyError).toMatch(/max_tokens/);
  expect(refused.entry.realApiRefusal).toBeUndefined();
  const valid = await post(refuse, messagesBody('hi'));
  expect(valid.res.statusCode).toBe(200);
  expect(valid.entry.realApiRefusal).toBeUndefined();
  expect(offered).toEqual([ZERO_TOKENS]);
});
