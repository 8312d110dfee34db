import { expect, test } from 'vitest';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { openMessagesClient } from '../../../src/suites/messages-client/context.js';

/** A client that starts for 3 s, sends its request, then works 2 s more, prints the reply and exits 0. */
const script = `
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', async () => {
  const r = await fetch(process.env.WIRECHECK_BASE_URL + '/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': process.env.WIRECHECK_API_KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: input,
  });
  const text = await r.text();
  setTimeout(() => process.stdout.write(text), 2000);
});
`;
const client = `sleep 3; exec ${shellQuote(process.execPath)} -e ${shellQuote(script)}`;

test('a client that starts slowly is given the case budget from its first request, not from its spawn', async () => {
  // 5 s in all against a 4 s budget: timed out when counted from the spawn. The probe is the first case.
  const ctx = await openMessagesClient({ client }, 1, { caseTimeoutMs: 4000 });
  try {
    const result = await ctx.shared.richBuffered();
    expect(result.requests).toHaveLength(1);
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 });
    expect(result.outcome.type).toBe('printed');
  } finally {
    await ctx.close();
  }
}, 40_000);

test('--start-timeout: a client that needs longer than the case budget to reach the mock at all is given that long', async () => {
  // 3 s of start-up against a 2 s budget: stopped before it sent anything, unless allowed 6 s.
  // The first case is the preflight: it never reached the mock, so the target is unavailable, and says what to do.
  await expect(openMessagesClient({ client }, 1, { caseTimeoutMs: 2000 })).rejects.toThrow(
    /never sent a request to the mock before its time ran out.*--start-timeout SECONDS/s,
  );
  const ctx = await openMessagesClient({ client, startTimeoutMs: 6000 }, 1, { caseTimeoutMs: 2500 });
  try {
    const result = await ctx.shared.richBuffered();
    expect(result.requests).toHaveLength(1);
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 });
  } finally {
    await ctx.close();
  }
}, 40_000);
