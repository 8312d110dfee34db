import { expect, test } from 'vitest';
import { createToolServerSuite } from '../../../src/suites/tool-server/index.js';
import { runAgainst, testServer } from './helpers.js';

// An SSE server whose every tool call holds its whole process for 3.5 s (a Python server with
// a blocking tool does so), past the test suite's budgets (HTTP 1 s, reply 1.5 s): meanwhile it
// answers no GET and no POST. It is busy, not gone, and routing it did not show is not judged.
const busySuite = createToolServerSuite({ maxCalls: 4, modelRuns: 1, httpMs: 1000, replyMs: 1500 });

function verdicts(result: Awaited<ReturnType<typeof runAgainst>>): Record<string, string> {
  return Object.fromEntries(
    result.checks.map((c) => [c.id, c.status === 'skip' ? `skip:${c.skipKind}` : c.status]),
  );
}

test('a GET that waits behind a slow call opens the stream once the server is free; its diagnostic tool is not judged', async () => {
  const only = [
    'tool-server.tools.diagnostic',
    'tool-server.tools.diagnostic-content',
    'tool-server.sse.stream-response',
    'tool-server.sse.endpoint-first',
  ];
  const result = await runAgainst(await testServer('slow-calls', 'sse'), { only }, busySuite);
  expect(verdicts(result)).toEqual({
    'tool-server.tools.diagnostic': 'skip:not-exercised',
    'tool-server.tools.diagnostic-content': 'skip:not-exercised',
    'tool-server.sse.stream-response': 'pass',
    'tool-server.sse.endpoint-first': 'pass',
  });
  const diagnostic = result.checks.find((c) => c.id === 'tool-server.tools.diagnostic')!;
  expect(diagnostic.message).toMatch(/got no reply, and the session answered nothing.*no answer to judge/);
}, 120_000);

test.each([
  [
    'tool-server.sse.concurrent-routing',
    /POST\(s\) got no HTTP response within 1000 ms\), though every session stayed open/,
  ],
  [
    'tool-server.sse.session-model',
    /got no HTTP response to its POST \(no response within 1000 ms\) and no reply on its stream for 4500 ms more/,
  ],
])(
  '%s on a server whose POSTs wait behind slow calls is not exercised, not failed',
  async (id, message) => {
    const result = await runAgainst(await testServer('slow-calls', 'sse'), { only: [id] }, busySuite);
    const check = result.checks.find((c) => c.id === id)!;
    expect(check, check.message).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(message);
  },
  180_000,
);

test('the calls the suite leaves such a server (a burst of routing calls, the session model) do not make it gone: no check after them fails', async () => {
  const only = [
    'tool-server.sse.concurrent-routing',
    'tool-server.sse.session-model',
    'tool-server.tools.generated-arguments',
    'tool-server.malformed.survives',
  ];
  const result = await runAgainst(await testServer('slow-calls', 'sse'), { only }, busySuite);
  const failed = result.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.message}`);
  expect(failed).toEqual([]);
  expect(result.checks.map((c) => c.id).sort()).toEqual([...only].sort());
  const routing = result.checks.find((c) => c.id === 'tool-server.sse.concurrent-routing')!;
  expect(routing.message ?? '').toMatch(
    /after a first call of diagnostics got no reply within 156 ms \(so the burst held 2 calls only\)|^$/,
  );
  expect(result.checks.find((c) => c.id === 'tool-server.malformed.survives')?.status).toBe('pass');
}, 300_000);
