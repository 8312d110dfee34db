import { expect, test } from 'vitest';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { openAgent } from '../../../src/suites/agent/context.js';

/** An agent that starts for 3 s, sends one request, then works 2 s more and exits 0. */
const script = `
const url = process.env.WIRECHECK_BASE_URL + '/v1/messages';
const body = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
fetch(url, {
  method: 'POST',
  headers: { 'x-api-key': process.env.WIRECHECK_API_KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
  body: JSON.stringify(body),
}).then((r) => r.text()).then(() => setTimeout(() => {}, 2000));
`;
const agent = `sleep 3; exec ${shellQuote(process.execPath)} -e ${shellQuote(script)}`;

test('an agent that starts slowly is given the case budget from its first request, not from its spawn', async () => {
  // 5 s in all against a 4 s budget: timed out when counted from the spawn.
  const ctx = await openAgent({ agent }, { seed: 1, jobs: 1 }, { caseTimeoutMs: 4000 });
  try {
    const probe = await ctx.result('oneCall');
    expect(probe.requests).toHaveLength(1);
    expect(probe.run).toMatchObject({ timedOut: false, exitCode: 0 });
  } finally {
    await ctx.close();
  }
}, 30_000);

test('--start-timeout: an agent that needs longer than the case budget to reach the mock at all is given that long', async () => {
  // 3 s of start-up against a 2 s budget: stopped before it sent anything, unless allowed 6 s.
  // The first case is the preflight: it never reached the mock, so the target is unavailable, and says what to do.
  await expect(openAgent({ agent }, { seed: 1, jobs: 1 }, { caseTimeoutMs: 2000 })).rejects.toThrow(
    /never sent a request to the mock.*--start-timeout SECONDS/s,
  );
  const ctx = await openAgent({ agent, startTimeoutMs: 6000 }, { seed: 1, jobs: 1 }, { caseTimeoutMs: 2500 });
  try {
    const probe = await ctx.result('oneCall');
    expect(probe.requests).toHaveLength(1);
    expect(probe.run).toMatchObject({ timedOut: false, exitCode: 0 });
  } finally {
    await ctx.close();
  }
}, 40_000);
