import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { type JournalEntry, startMockMessagesService } from '../../../src/mocks/messages/index.js';
import { CASES } from '../../../src/suites/agent/cases.js';
import { loopChecks } from '../../../src/suites/agent/checks/loop.js';
import type { AgentCaseResult, AgentCtx } from '../../../src/suites/agent/context.js';
import { refusalOf } from '../../../src/suites/agent/expect.js';
import { fakeCaseResult } from './fake-result.js';

const KEY = 'sk-wirecheck-coded-refusals';
const ENV = { signal: new AbortController().signal } as never;
const accepted = loopChecks.find((c) => c.id === 'agent.loop.requests-accepted')!;

function served(seq: number): JournalEntry {
  return {
    seq,
    status: 200,
    method: 'POST',
    url: '/v1/messages',
    headers: { host: '127.0.0.1:4000' },
    body: { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] },
    configuredKeyIn: ['x-api-key'],
    outcome: 'completed',
  } as unknown as JournalEntry;
}

/** Every case of the suite answered alike: `entries`, the agent exiting 1. */
function ctxOf(entries: JournalEntry[]): AgentCtx {
  const resultOf = (key: keyof typeof CASES): AgentCaseResult => fakeCaseResult(CASES[key], entries, 1);
  return {
    result: async (key: keyof typeof CASES) => resultOf(key),
    results: async (keys: readonly (keyof typeof CASES)[]) => keys.map(resultOf),
  } as unknown as AgentCtx;
}

/** POSTs `body` gzipped with the key; resolves with the status. */
function postGzip(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/v1/messages`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': body.length,
          'x-api-key': KEY,
          'anthropic-version': '2023-06-01',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // The mock may answer before the whole body is sent and close the socket under it.
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

test("a gzip body that decodes past the mock's limit: its 413 is the mock's own, not the real API's size limit, and requests-accepted does not warn", async () => {
  const bodyLimit = 64 * 1024;
  const mock = await startMockMessagesService({ apiKey: KEY, bodyLimit });
  let entry: JournalEntry | undefined;
  try {
    const text = JSON.stringify({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'x'.repeat(2 * bodyLimit) }],
    });
    const coded = gzipSync(Buffer.from(text));
    expect(coded.length).toBeLessThan(bodyLimit);
    expect(await postGzip(mock.url, coded)).toBe(413);
    [entry] = mock.journal.entries();
  } finally {
    await mock.close();
  }
  expect(entry).toMatchObject({ status: 413, body: undefined, configuredKeyIn: ['x-api-key'] });
  expect(refusalOf(entry!)).toEqual({
    why: expect.stringMatching(
      /^Content-Encoding: gzip: the decoded body passes the mock's limit of 65536 bytes \(after \d+ bytes as sent\); whether the real API takes a gzip body, and whether its limit counts the bytes sent or decoded, is not verified$/,
    ),
    judgedBy: expect.stringMatching(/^no check judges that request: /),
  });
  // An agent that then sends its body uncoded and is served: nothing for requests-accepted to warn of.
  await expect(accepted.run(ctxOf([entry!, served(1)]), ENV)).resolves.toBeUndefined();
  // No body read at all: not exercised, naming the decoded limit, not the real API's.
  await expect(accepted.run(ctxOf([entry!]), ENV)).rejects.toThrow(
    expect.objectContaining({
      name: 'NotExercised',
      message: expect.stringContaining("the decoded body passes the mock's limit"),
    }),
  );
}, 30_000);
