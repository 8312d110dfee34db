import { expect, test } from 'vitest';
import { HarnessBug } from '../../../src/harness/check.js';
import { propertyChecks } from '../../../src/suites/tool-server/checks/properties.js';
import type { ToolServerCtx } from '../../../src/suites/tool-server/context.js';

const answered = propertyChecks.find((c) => c.id === 'tool-server.tools.generated-arguments-answered')!;
const env = { seed: 1, runs: 10, full: false, signal: new AbortController().signal } as never;

/** A context whose shared run of generated calls stopped at `failure` after three answered calls. */
function ctxStoppedAt(failure: Error): ToolServerCtx {
  const run = { skipped: undefined, failure, silent: [], calls: 3, answered: 3 };
  return { shared: async () => run, replyMs: 1000 } as unknown as ToolServerCtx;
}

test('run alone (--only), it stops on a bug of wirecheck met in the calls rather than calling it not exercised', async () => {
  const bug = new TypeError("Cannot read properties of undefined (reading 'inputSchema')");
  await expect(answered.run(ctxStoppedAt(bug), env)).rejects.toSatisfy(
    (e: unknown) => e instanceof HarnessBug && e.cause === bug,
  );
});

test("a failure of the server's, which the must check reports, leaves it not exercised", async () => {
  const { CheckFailure } = await import('../../../src/harness/check.js');
  await expect(answered.run(ctxStoppedAt(new CheckFailure('the server died')), env)).rejects.toMatchObject({
    name: 'NotExercised',
  });
});
