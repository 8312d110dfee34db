import { expect, test } from 'vitest';
import { errorChecks } from '../../../src/suites/messages-client/checks/errors.js';
import type { MessagesClientCtx } from '../../../src/suites/messages-client/context.js';

const check = errorChecks.find((c) => c.id === 'messages-client.errors.retry-after')!;
const env = { signal: new AbortController().signal } as never;

/** A case whose 429 came at 0 and whose retry came `retryAt` ms later; the 429's end stamped at `endedAt`. */
function ctxOf(retryAt: number, endedAt: number): MessagesClientCtx {
  const requests = [
    { receivedAtMono: 0, endedAtMono: endedAt, status: 429 },
    { receivedAtMono: retryAt, endedAtMono: retryAt + 1, status: 429 },
  ];
  return { shared: { rateLimited: async () => ({ requests }) } } as unknown as MessagesClientCtx;
}

test("a retry 1000 ms after the 429's request passes, though the mock stamped the 429's end 70 ms late", async () => {
  await expect(check.run(ctxOf(1_000, 70), env)).resolves.toBeUndefined();
});

test('a retry 600 ms after the 429 warns, naming the wait', async () => {
  await expect(check.run(ctxOf(600, 1), env)).rejects.toThrow(/retry 1 came 600 ms after the 429/);
});
