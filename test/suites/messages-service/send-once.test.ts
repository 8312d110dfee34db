import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openMessagesService, rememberingSender } from '../../../src/suites/messages-service/context.js';
import type { BufferedReply } from '../../../src/suites/messages-service/replies.js';
import { TEXT_MESSAGE } from './stream-replies.js';

// A hostile service may answer each invalid body with tens of MiB of error message: what the
// run remembers to avoid sending a body twice is capped in characters as well as in bodies.

function replyOf(text: string): BufferedReply {
  return { status: 400, headers: {}, text, json: undefined, jsonError: 'not JSON' };
}

/** A sender that answers each body with `answer(raw)` and records what it sent. */
function recordingSend(answer: (raw: string) => string) {
  const sent: string[] = [];
  const send = async (raw: string) => {
    sent.push(raw);
    return replyOf(answer(raw));
  };
  return { sent, send };
}

describe('messages-service sendOnce: replies remembered within a budget', () => {
  test('a reply within the budget is remembered: the same body is sent once', async () => {
    const { sent, send } = recordingSend(() => 'x'.repeat(10));
    const sendOnce = rememberingSender(send, { maxBodies: 10, maxChars: 100 });
    await sendOnce('a');
    expect((await sendOnce('a')).text).toBe('x'.repeat(10));
    expect(sent).toEqual(['a']);
  });

  test('a reply past the budget is not remembered: the same body is sent again', async () => {
    const { sent, send } = recordingSend((raw) => (raw === 'big' ? 'x'.repeat(1000) : 'small'));
    const sendOnce = rememberingSender(send, { maxBodies: 10, maxChars: 100 });
    await sendOnce('big');
    expect((await sendOnce('big')).text).toHaveLength(1000);
    // The budget the big reply did not take is left for the others.
    await sendOnce('a');
    await sendOnce('a');
    expect(sent).toEqual(['big', 'big', 'a']);
  });

  test('replies that fill the budget together stop being remembered', async () => {
    const { sent, send } = recordingSend(() => 'x'.repeat(40));
    const sendOnce = rememberingSender(send, { maxBodies: 10, maxChars: 100 });
    for (const raw of ['a', 'b', 'c', 'a', 'b', 'c']) await sendOnce(raw);
    expect(sent).toEqual(['a', 'b', 'c', 'c']);
  });

  test('no more bodies than the count cap are remembered', async () => {
    const { sent, send } = recordingSend(() => 'x');
    const sendOnce = rememberingSender(send, { maxBodies: 1, maxChars: 100 });
    for (const raw of ['a', 'b', 'a', 'b']) await sendOnce(raw);
    expect(sent).toEqual(['a', 'b', 'b']);
  });
});

const servers: Server[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A service serving the probe, answering bodies `"big"` and `"small"` with errors of 1000 and 10 characters; it records them. */
async function errorService(bodies: string[]): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      const size = body === '"big"' ? 1000 : body === '"small"' ? 10 : -1;
      res.writeHead(size < 0 ? 200 : 400, { 'content-type': 'application/json' });
      res.end(size < 0 ? JSON.stringify(TEXT_MESSAGE) : 'x'.repeat(size));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('messages-service suite: sendOnce of an opened service', () => {
  test('honours maxRememberedChars: a reply past it is sent again, one within it is not', async () => {
    const bodies: string[] = [];
    const baseUrl = await errorService(bodies);
    vi.stubEnv('WIRECHECK_SEND_ONCE_TEST_KEY', 'k');
    const ctx = await openMessagesService(
      { baseUrl, apiKeyEnv: 'WIRECHECK_SEND_ONCE_TEST_KEY' },
      { maxRememberedChars: 100 },
    );
    try {
      for (const raw of ['"big"', '"big"', '"small"', '"small"']) {
        expect((await ctx.sendOnce(raw)).status).toBe(400);
      }
      expect(bodies.slice(1)).toEqual(['"big"', '"big"', '"small"']);
    } finally {
      await ctx.close();
    }
  });
});
