import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { openRunner } from '../../../src/suites/runner/context.js';
import { referenceRunnerCommand } from '../../../src/suites/runner/index.js';
import { runAgainst, runnerCommand } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'wirecheck-runner-preflight-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The message a runner command that cannot be tested is refused with (exit 2). */
async function refusal(runner: string): Promise<string> {
  const error = await runAgainst(runner, { only: ['runner.output.stdout-only'] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetUnavailable);
  return (error as Error).message;
}

test('a command that cannot be started is unavailable, with what sh said', async () => {
  const message = await refusal('wirecheck-no-such-command-4711');
  expect(message).toContain('"wirecheck-no-such-command-4711" could not be started by sh -c (exit 127');
  expect(message).toMatch(/stderr: .*not found/);
}, 30_000);

test('a runner that dies at start is unavailable, with the first lines of its stderr', async () => {
  const message = await refusal(`${shellQuote(process.execPath)} /nonexistent/wirecheck-runner.js`);
  expect(message).toContain('answered nothing to a plain tool_use line');
  expect(message).toContain('exited with status 1');
  expect(message).toContain("Cannot find module '/nonexistent/wirecheck-runner.js'");
}, 30_000);

test('a command that is not a runner (cat echoes the tool_use back) is unavailable, with what it printed', async () => {
  const message = await refusal('cat');
  expect(message).toContain('which is not a tool_result JSON line');
  expect(message).toContain('\\"type\\":\\"tool_use\\"');
}, 30_000);

test('a runner that answers nothing is unavailable', async () => {
  expect(await refusal('cat >/dev/null')).toContain('answered nothing to a plain tool_use line');
}, 30_000);

test('a runner that prints a banner line before its results is unavailable, the line named', async () => {
  // Let through, every later answer sat one line off: 33 checks failed citing unrelated clauses.
  const message = await refusal(`echo 'runner v1 ready'; exec ${referenceRunnerCommand()}`);
  expect(message).toContain(
    'printed "runner v1 ready" before its first result line: its stdout must carry only result lines, one per input line (logs go to stderr)',
  );
  expect(message).toContain('it was given a plain tool_use line (`echo wirecheck-probe`)');
}, 30_000);

test('a runner that prints a log line after its result is unavailable, the line named', async () => {
  const message = await refusal(`${runnerCommand('conforming')}; echo 'runner done'`);
  expect(message).toContain(
    'printed 2 lines for 1 input line(s): after its result line came "runner done": its stdout must carry only result lines',
  );
}, 30_000);

test('a runner that cannot be started any more after the preflight fails the check that saw it, and the rest are not run', async () => {
  const once = join(scratch, 'started-once');
  const runner = `if [ -e ${shellQuote(once)} ]; then exit 127; fi; touch ${shellQuote(once)}; exec ${runnerCommand('conforming')}`;
  const result = await runAgainst(runner, {
    only: ['runner.output.stdout-only', 'runner.output.stderr-only', 'runner.results.exits-on-eof'],
  });
  expect(result.checks.map((c) => [c.id, c.status, c.skipKind])).toEqual([
    ['runner.results.exits-on-eof', 'fail', undefined],
    ['runner.output.stderr-only', 'skip', 'not-run'],
    ['runner.output.stdout-only', 'skip', 'not-run'],
  ]);
  expect(result.checks[0]!.targetGone).toBe(true);
  expect(result.checks[0]!.message).toContain('could not be started by sh -c (exit 127');
}, 60_000);

test('a runner that goes silent after the preflight fails each check with one shared cause', async () => {
  const once = join(scratch, 'answered-once');
  const runner = `if [ -e ${shellQuote(once)} ]; then cat >/dev/null; exit 0; fi; touch ${shellQuote(once)}; exec ${runnerCommand('conforming')}`;
  const result = await runAgainst(runner, { only: ['runner.output.', 'runner.results.exits-on-eof'] });
  const failed = result.checks.filter((c) => c.status === 'fail');
  expect(failed.length).toBeGreaterThan(3);
  expect(new Set(failed.map((c) => c.sharedCause))).toEqual(
    new Set(['the runner printed no line at all and exited 0; nothing on stderr']),
  );
}, 60_000);

test('a stop (an interrupt) during the preflight ends it at once, and nothing is left to wait for', async () => {
  const stop = new AbortController();
  const started = performance.now();
  setTimeout(() => stop.abort(), 300);
  const ctx = await openRunner({ runner: 'sleep 30' }, {}, stop.signal);
  await ctx.close();
  // Only waiting for the runner's 30 s sleep is the fault; a loaded machine (CI: two cores, a load of 10) takes seconds to start and end processes.
  expect(performance.now() - started).toBeLessThan(20_000);
}, 30_000);
