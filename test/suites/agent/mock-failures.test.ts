import { expect, test, vi } from 'vitest';
import { HarnessBug } from '../../../src/harness/check.js';
import { openAgent } from '../../../src/suites/agent/context.js';
import { nodeCommand, SEED } from './helpers.js';

/** The case whose scripted model throws at its first request, when set. */
const broken = vi.hoisted(() => ({ tag: undefined as string | undefined }));

// A bug of the suite's scripted model, made on purpose: the mock answers it 500 api_error.
vi.mock('../../../src/suites/agent/script.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/suites/agent/script.js')>();
  return {
    ...original,
    scriptedAgentModel: (...args: Parameters<typeof original.scriptedAgentModel>) => {
      const model = original.scriptedAgentModel(...args);
      return {
        ...model,
        scenario: (...call: Parameters<typeof model.scenario>) => {
          if (args[0] === broken.tag && call[1].requestIndex === 0) throw new Error('scripted model broke');
          return model.scenario(...call);
        },
      };
    },
  };
});

const AGENT = { agent: nodeCommand('./broken/conforming.mjs') };

/** The opened suite (closed again), or what opening it threw. */
async function open(): Promise<unknown> {
  try {
    const ctx = await openAgent(AGENT, { seed: SEED, jobs: 1 }, { caseTimeoutMs: 20_000 });
    await ctx.close();
    return ctx;
  } catch (e) {
    return e;
  }
}

test('a case whose scripted model throws is a harness bug, not a 500 the agent is judged on', async () => {
  broken.tag = 'one-call';
  const opened = await open();
  expect(opened).toBeInstanceOf(HarnessBug);
  expect((opened as Error).message).toMatch(
    /^case one-call: the mock messages service failed on its own at request 1 .*the case's scenario threw \(Error: scripted model broke\)/,
  );
}, 60_000);

test('a case the mock serves as scripted opens the suite', async () => {
  broken.tag = undefined;
  const opened = await open();
  expect(opened).not.toBeInstanceOf(Error);
}, 60_000);
