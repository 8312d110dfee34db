import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import { createMessagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { MESSAGE_START } from './stream-replies.js';

// The spec bounds no reply's time. A well-formed stream that wirecheck's own request budget
// (requestTimeoutMs) cut was judged as the service's protocol fault ("end of stream with
// block 0 open"): the cut is wirecheck's, so the frame checks are not exercised, naming the
// budget. A stream the service itself ends short still fails.

const KEY_ENV = 'WIRECHECK_TEST_SLOW_SERVICE_KEY';
const P = 'messages-service.';
const FRAME_CHECKS = [
  'stream.order',
  'stream.frame-format',
  'stream.reduces-to-message',
  'stream.message-delta',
];

const MESSAGE = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'abc' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 3, output_tokens: 1 },
};
const FRAMES = [
  MESSAGE_START,
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'b' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'c' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 3 },
  },
  { type: 'message_stop' },
];

/** How a stream is answered: `count` frames, one every `everyMs`, then the body ends. */
interface StreamPlan {
  readonly everyMs: number;
  readonly count: number;
  /** Answer buffered requests this late (headers and body), instead of at once. */
  readonly bufferedAfterMs?: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
beforeAll(() => {
  process.env[KEY_ENV] = 'k';
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

function streamFrames(res: ServerResponse, plan: StreamPlan): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let sent = 0;
  const timer = setInterval(() => {
    res.write(encodeEvent(FRAMES[sent++] as never));
    if (sent >= plan.count) {
      clearInterval(timer);
      res.end();
    }
  }, plan.everyMs);
  res.on('close', () => clearInterval(timer));
}

async function service(plan: StreamPlan): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { stream?: boolean };
      if (body.stream === true) return streamFrames(res, plan);
      const answer = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(MESSAGE));
      if (plan.bufferedAfterMs === undefined) return answer();
      const timer = setTimeout(answer, plan.bufferedAfterMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function frameChecks(plan: StreamPlan, requestTimeoutMs: number) {
  const baseUrl = await service(plan);
  const suite = createMessagesServiceSuite({ abortSettleMs: 0, requestTimeoutMs });
  const result = await runSuite(
    suite,
    { baseUrl, apiKeyEnv: KEY_ENV },
    { seed: 1, runs: 1, only: FRAME_CHECKS.map((id) => `${P}${id}`) },
  );
  return result.checks;
}

describe("messages-service: a stream cut by wirecheck's request budget", () => {
  test('a slow, well-formed stream (150 ms a frame) cut at 600 ms leaves the frame checks not exercised, naming the budget', async () => {
    const checks = await frameChecks({ everyMs: 150, count: FRAMES.length }, 600);
    expect(checks.map((c) => c.id).sort()).toEqual(FRAME_CHECKS.map((id) => `${P}${id}`).sort());
    for (const check of checks) {
      expect(check.status, check.id).toBe('skip');
      expect(check.skipKind, check.id).toBe('not-exercised');
      expect(check.message, check.id).toMatch(
        /a stream \(\d+ frames read\) did not end within wirecheck's budget of one request \(600 ms, requestTimeoutMs\)/,
      );
    }
  });

  test('the same stream within the budget passes', async () => {
    const checks = await frameChecks({ everyMs: 20, count: FRAMES.length }, 5000);
    for (const check of checks) expect(check.status, check.id).toBe('pass');
  });

  test('a stream the service itself ends after block 0 opened still fails the order', async () => {
    const checks = await frameChecks({ everyMs: 20, count: 3 }, 5000);
    const order = checks.find((c) => c.id === `${P}stream.order`);
    expect(order?.status).toBe('fail');
    expect(order?.message).toMatch(/frame order/);
  });

  test('a probe the budget cut makes the target unavailable, naming the budget', async () => {
    const baseUrl = await service({ everyMs: 20, count: FRAMES.length, bufferedAfterMs: 2000 });
    const suite = createMessagesServiceSuite({ requestTimeoutMs: 300 });
    const error = await suite
      .open({ baseUrl, apiKeyEnv: KEY_ENV }, { seed: 1, runs: 1, full: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetUnavailable);
    expect((error as Error).message).toMatch(
      /did not answer the plainest request of the suite in time .*within wirecheck's budget of one request \(300 ms/,
    );
  });
});
