import { expect, test } from 'vitest';
import { runSuite } from '../../src/harness/run-suite.js';
import { referenceAgentCommand } from '../../src/suites/agent/entry.js';
import { agentSuite } from '../../src/suites/agent/index.js';
import { referenceClientCommand } from '../../src/suites/messages-client/entry.js';
import { messagesClientSuite } from '../../src/suites/messages-client/index.js';
import { referenceToolServerCommand } from '../../src/suites/tool-server/entry.js';
import { createToolServerSuite } from '../../src/suites/tool-server/index.js';
import { liveWith } from './process-helpers.js';

// dist/ is built once by the global setup (test/global-setup.ts) before any test runs.

/** A target command that first leaves a setsid escapee (`sleep <arg>`) behind, then runs `command`. */
function leavingEscapee(arg: string, command: string): string {
  return `setsid sleep ${arg} </dev/null >/dev/null 2>&1 & ${command}`;
}

const uniqueArg = (prefix: number) => `${prefix}${Math.floor(Math.random() * 1e7)}.125`;

test('a tool server whose every start leaves a setsid escapee leaves nothing running after the suite', async () => {
  const arg = uniqueArg(37);
  const suite = createToolServerSuite({ maxCalls: 4, modelRuns: 1, httpMs: 1500 });
  const result = await runSuite(
    suite,
    { kind: 'stdio', command: leavingEscapee(arg, referenceToolServerCommand('stdio')) },
    { seed: 1, runs: 2, only: ['tool-server.initialize.', 'tool-server.stdio.'] },
  );
  expect(result.checks.length).toBeGreaterThan(0);
  expect(await liveWith(arg, 1000)).toEqual([]);
}, 120_000);

test('a messages client that leaves a setsid escapee leaves nothing running after its check', async () => {
  const arg = uniqueArg(38);
  const result = await runSuite(
    messagesClientSuite,
    { client: leavingEscapee(arg, referenceClientCommand()) },
    { seed: 1, runs: 2, only: ['messages-client.auth.key-sent'] },
  );
  expect(result.checks.length).toBe(1);
  expect(await liveWith(arg, 1000)).toEqual([]);
}, 120_000);

test('an agent that leaves a setsid escapee leaves nothing running after its check', async () => {
  const arg = uniqueArg(39);
  const result = await runSuite(
    agentSuite,
    { agent: leavingEscapee(arg, referenceAgentCommand()) },
    { seed: 1, runs: 1, only: ['agent.loop.'] },
  );
  expect(result.checks.length).toBeGreaterThan(0);
  expect(await liveWith(arg, 1000)).toEqual([]);
}, 120_000);
