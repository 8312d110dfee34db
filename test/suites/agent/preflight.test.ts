import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { openAgent } from '../../../src/suites/agent/context.js';
import { nodeCommand, runAgainst } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'wirecheck-agent-preflight-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The message an agent command that cannot be tested is refused with (exit 2, no check counted). */
async function refusal(agent: string): Promise<string> {
  const error = await runAgainst(agent).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetUnavailable);
  return (error as Error).message;
}

test('`cat` never reaches the mock: unavailable, with what it printed (not 12 passes)', async () => {
  const message = await refusal('cat');
  expect(message).toContain('"cat" never sent a request to the mock messages service');
  expect(message).toContain('it exited with status 0; stdout: wirecheck case one-call');
}, 30_000);

test('an agent that dies at start is unavailable, with the first lines of its stderr', async () => {
  const message = await refusal(`${shellQuote(process.execPath)} /nonexistent/wirecheck-agent.js`);
  expect(message).toContain('never sent a request');
  expect(message).toContain('it exited with status 1');
  expect(message).toContain("Cannot find module '/nonexistent/wirecheck-agent.js'");
}, 30_000);

test("an agent that calls only the real API's other operations (its loop posted to count_tokens) is unavailable, and says so", async () => {
  const message = await refusal(nodeCommand('./broken/count-tokens-only.mjs'));
  expect(message).toContain('never sent a request to the mock messages service');
  expect(message).toContain(
    "it called only the real API's other operations, which the mock does not serve (POST /v1/messages/count_tokens)",
  );
}, 30_000);

test('a command that cannot be started is unavailable, with what sh said', async () => {
  const message = await refusal('wirecheck-no-such-agent-4711');
  expect(message).toContain('could not be started by sh -c (exit 127');
}, 30_000);

test('an agent that cannot be started any more after the preflight fails the check that saw it, and the rest are not run', async () => {
  const once = join(scratch, 'started-once');
  const agent = `if [ -e ${shellQuote(once)} ]; then exit 127; fi; touch ${shellQuote(once)}; exec ${nodeCommand('./broken/conforming.mjs')}`;
  const result = await runAgainst(agent, { only: ['agent.breaker.', 'agent.cap.honoured'] });
  const [first, ...rest] = result.checks;
  expect(first!.status).toBe('fail');
  expect(first!.targetGone).toBe(true);
  expect(first!.message).toContain('could not be started by sh -c (exit 127');
  expect(rest.map((c) => c.skipKind)).toEqual(rest.map(() => 'not-run'));
  expect(rest.length).toBeGreaterThan(3);
}, 60_000);

test('an agent that sends nothing after the preflight fails each check with one shared cause', async () => {
  const once = join(scratch, 'answered-once');
  const agent = `if [ -e ${shellQuote(once)} ]; then echo 'lost my way' >&2; exit 1; fi; touch ${shellQuote(once)}; exec ${nodeCommand('./broken/conforming.mjs')}`;
  const result = await runAgainst(agent, { only: ['agent.breaker.', 'agent.cap.'] });
  const failed = result.checks.filter((c) => c.status === 'fail');
  expect(failed.length).toBeGreaterThan(3);
  expect(new Set(failed.map((c) => c.sharedCause))).toEqual(
    new Set([
      'the agent sent no request in a case: it exited with status 1; nothing on stdout; stderr: lost my way',
    ]),
  );
}, 60_000);

test('a stop (an interrupt) during the preflight ends the running agent at once', async () => {
  const stop = new AbortController();
  const started = performance.now();
  setTimeout(() => stop.abort(), 300);
  await expect(openAgent({ agent: 'sleep 30' }, { seed: 1, signal: stop.signal })).rejects.toThrow(/stopped/);
  // Only waiting for the agent's 30 s sleep is the fault; a loaded machine (CI: two cores, a load of 10) takes seconds to start and end processes.
  expect(performance.now() - started).toBeLessThan(20_000);
}, 30_000);
