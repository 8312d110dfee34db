import { expect, test } from 'vitest';
import { Journal, type JournalEntry } from '../../../src/mocks/messages/index.js';
import { requestChecks } from '../../../src/suites/messages-client/checks/request.js';
import type { CaseResult, MessagesClientCtx } from '../../../src/suites/messages-client/context.js';
import { richRequest } from '../../../src/suites/messages-client/requests.js';
import { fakeCommandRun, journaledPost } from '../journaled-request.js';

/** A journal that keeps 2 KiB of a body: a longer one is cut, as the mock's 1 MiB limit cuts a real one. */
const journal = new Journal({ bodyBytes: 2048 });

/** The request a correct client sends for stdin `richRequest(stream)`, with a top-level `system` (not judged) of `systemChars`. */
function sent(stream: boolean, systemChars: number, bodyError?: string): JournalEntry {
  const body = { ...richRequest(stream), ...(systemChars > 0 && { system: 'x'.repeat(systemChars) }) };
  return journaledPost(journal, body, {
    stream,
    status: bodyError === undefined ? 200 : 400,
    ...(bodyError !== undefined && { bodyError }),
    version: { header: 'anthropic-version', value: '2023-06-01' },
  });
}

function caseOf(request: JournalEntry): CaseResult {
  return {
    run: fakeCommandRun(),
    outcome: { type: 'printed', value: {} },
    requests: [request],
    otherOperations: [],
  };
}

function ctxOf(buffered: JournalEntry, streamed: JournalEntry): MessagesClientCtx {
  return {
    shared: { richBuffered: async () => caseOf(buffered), richStreamed: async () => caseOf(streamed) },
  } as unknown as MessagesClientCtx;
}

const env = { signal: new AbortController().signal, idle: <T>(work: Promise<T>) => work } as never;
const check = (id: string) => requestChecks.find((c) => c.id === id)!;

test.each(['messages-client.request.body', 'messages-client.request.body-additions'])(
  '%s does not compare bodies the journal cut: not exercised, naming the cut',
  async (id) => {
    const cut = sent(false, 8192);
    expect(cut.bodyTruncated).toBeDefined();
    await expect(check(id).run(ctxOf(cut, sent(true, 8192)), env)).rejects.toThrow(
      expect.objectContaining({
        name: 'NotExercised',
        message: expect.stringMatching(
          /^the mock's journal did not keep a whole request body \(buffered request: the mock's journal kept only the start of its \d+-byte body; streaming request: the mock's journal kept only the start of its \d+-byte body\)/,
        ),
      }),
    );
  },
);

test('a cut body beside a whole one: the whole one is compared, and passes', async () => {
  const ctx = ctxOf(sent(false, 8192), sent(true, 0));
  await expect(check('messages-client.request.body').run(ctx, env)).resolves.toBeUndefined();
  await expect(check('messages-client.request.body-additions').run(ctx, env)).resolves.toBeUndefined();
});

test('a cut body the mock refused still fails request.body: the mock judged it whole', async () => {
  const ctx = ctxOf(sent(false, 8192, 'max_tokens: must be positive'), sent(true, 8192));
  await expect(check('messages-client.request.body').run(ctx, env)).rejects.toThrow(
    expect.objectContaining({
      name: 'CheckFailure',
      message: expect.stringContaining('buffered request: the mock refused the body as the real API would'),
    }),
  );
});
