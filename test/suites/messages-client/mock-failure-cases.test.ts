import { afterAll, beforeAll, expect, test } from 'vitest';
import { HarnessBug } from '../../../src/harness/check.js';
import { always, helloMessage, openMessagesClient } from '../../../src/suites/messages-client/context.js';
import { plainRequest } from '../../../src/suites/messages-client/requests.js';
import { nodeCommand, SEED } from './helpers.js';

type Ctx = Awaited<ReturnType<typeof openMessagesClient>>;
let ctx: Ctx;

// An independent conforming client (plain fetch): it does not retry, so each case is one request.
beforeAll(async () => {
  ctx = await openMessagesClient({ client: nodeCommand('./broken/conforming.mjs') }, SEED, {
    caseTimeoutMs: 20_000,
  });
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

test('a case whose scenario throws is a harness bug naming the request, not a result to judge', async () => {
  const run = ctx.runCase({
    scenario: () => {
      throw new Error('scenario broke');
    },
    body: plainRequest(false),
  });
  await expect(run).rejects.toBeInstanceOf(HarnessBug);
  await expect(run).rejects.toThrow(
    /^run \d+ of the client: the mock messages service failed on its own at request 1 .*scenario broke/,
  );
}, 60_000);

test('a stream the mock cuts because it cannot encode the reply is a harness bug', async () => {
  const message = { ...helloMessage(), content: [{ type: 'text', text: 'x', meta: 1n } as never] };
  await expect(
    ctx.runCase({ scenario: always({ kind: 'message', message }), body: plainRequest(true) }),
  ).rejects.toThrow(/the mock could not stream the scenario's reply/);
}, 60_000);

test('a 500 the case scripts reaches the checks as the client met it', async () => {
  const result = await ctx.runCase({
    scenario: always({ kind: 'error', status: 500, errorType: 'api_error' }),
    body: plainRequest(false),
  });
  expect(result.requests.map((r) => r.status)).toEqual([500]);
  expect(result.outcome).toMatchObject({ type: 'error', error: { kind: 'status', status: 500 } });
}, 60_000);
