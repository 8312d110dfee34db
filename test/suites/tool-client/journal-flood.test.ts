import { beforeAll, expect, test } from 'vitest';
import { DEFAULT_JOURNAL_LIMITS } from '../../../src/mocks/limits.js';
import { ensureBuilt, nodeCommand, runAgainst, statusById } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const P = 'tool-client.http.';

// MAX_CASE_MESSAGES counts JSON-RPC messages, and the byte guard bytes: a flood of small requests
// that carry no message (GETs naming an unknown session, answered 404) met neither, and the mock's
// journal forgot its oldest entries, initialize first, so the lifecycle check failed the client
// for a "tools/call before initialize" it never sent.
test('a client that floods the mock with GETs is stopped before its journal forgets anything, and is judged from its first message', async () => {
  // The client's 11,000 GETs outnumber what the journal keeps.
  expect(DEFAULT_JOURNAL_LIMITS.entries).toBeLessThan(11_000);
  const ids = [`${P}lifecycle.initialized-first`, `${P}result.printed`];
  const result = await runAgainst(nodeCommand('./clients/http-flood-get.mjs'), { only: ids }, ['http']);
  const check = (id: string) => result.checks.find((c) => c.id === id);
  expect(
    statusById(result),
    result.checks.map((c) => `${c.id}: ${c.status}: ${c.message}`).join('\n'),
  ).toEqual({
    // Its initialize and notifications/initialized are still in the journal, in order.
    [`${P}lifecycle.initialized-first`]: 'pass',
    // Stopped mid-flood, it never got to the call: the flood is what it is failed for.
    [`${P}result.printed`]: 'fail',
  });
  expect(check(`${P}result.printed`)?.message).toMatch(
    /wirecheck stopped it after \d+ messages in this case/,
  );
}, 120_000);
