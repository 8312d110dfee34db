import { createServer } from 'node:http';
import { expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { createMessagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { TEXT_MESSAGE } from './stream-replies.js';

// A body left unjudged (a reply wirecheck's budget cut) ends the sending, but the invalid
// bodies the service served before it still fail the check.

test('a service that serves invalid bodies and hangs on one that is not JSON fails invalid-rejected', async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        JSON.parse(body);
      } catch {
        return; // hangs: wirecheck's request budget ends the wait
      }
      res
        .writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_1' })
        .end(JSON.stringify(TEXT_MESSAGE));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  process.env.WC_UNJUDGED_KEY = 'sk-test-0123456789';
  try {
    const suite = createMessagesServiceSuite({ requestTimeoutMs: 1500, maxHttpRuns: 3 });
    const result = await runSuite(
      suite,
      { baseUrl: `http://127.0.0.1:${port}`, apiKeyEnv: 'WC_UNJUDGED_KEY' },
      { seed: 1, runs: 3, only: ['messages-service.errors.invalid-rejected'] },
    );
    const check = result.checks.find((c) => c.id === 'messages-service.errors.invalid-rejected')!;
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/not refused as a client error/);
  } finally {
    delete process.env.WC_UNJUDGED_KEY;
    server.closeAllConnections();
    server.close();
  }
}, 60_000);
