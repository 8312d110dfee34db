import { beforeAll, describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../src/harness/results.js';
import { stillAlive } from '../harness/process-helpers.js';
import * as agent from './agent/helpers.js';
import * as messagesClient from './messages-client/helpers.js';
import * as runner from './runner/helpers.js';
import * as toolClient from './tool-client/helpers.js';
import * as toolServer from './tool-server/helpers.js';

// Every suite that starts target processes has <suite>.processes.none-left: a target whose every
// run leaves a `setsid sleep 317` behind (its conforming twin with that one flaw) warns on it,
// naming the command and the process; the conforming twin passes it.

/** The sleep every broken variant leaves (leave-setsid-sleep.mjs in each suite's folder of variants). */
const LEFT = 'sleep 317';

interface SuiteCase {
  readonly suite: string;
  run(variant: string, only: string[]): Promise<SuiteResult>;
}

const SUITES: SuiteCase[] = [
  { suite: 'runner', run: (v, only) => runner.runAgainst(runner.runnerCommand(v), { only }) },
  { suite: 'agent', run: (v, only) => agent.runAgainst(agent.nodeCommand(`./broken/${v}.mjs`), { only }) },
  {
    suite: 'messages-client',
    run: (v, only) => messagesClient.runAgainst(messagesClient.nodeCommand(`./broken/${v}.mjs`), { only }),
  },
  {
    suite: 'tool-client',
    run: (v, only) => toolClient.runAgainst(toolClient.nodeCommand(`./clients/${v}.mjs`), { only }),
  },
  {
    suite: 'tool-server',
    run: async (v, only) =>
      toolServer.runAgainst(await toolServer.testServer(v, 'stdio'), { only }, toolServer.quickSuite),
  },
];

beforeAll(() => {
  messagesClient.ensureBuilt();
});

describe.each(SUITES.map((c) => [c.suite, c] as const))('%s.processes.none-left', (suite, { run }) => {
  const id = `${suite}.processes.none-left`;

  test('a target that leaves a setsid sleep behind warns, naming the command and the process', async () => {
    const result = await run('leave-setsid-sleep', [id]);
    const check = result.checks.find((c) => c.id === id);
    expect(check?.status, check?.message).toBe('warn');
    expect(check?.level).toBe('should');
    expect(check?.message).toContain('leave-setsid-sleep.mjs');
    expect(check?.message).toMatch(/left \d+ process(es)? running after it ended/);
    expect(check?.actual).toMatch(new RegExp(`pid \\d+: ${LEFT}`));
    // The containment killed them: the check reports, it does not leave them behind either. Only the
    // pids it named are looked at: another test run on the machine leaves `sleep 317`s of its own.
    const named = [...(check?.actual ?? '').matchAll(/pid (\d+):/g)].map((m) => Number(m[1]));
    expect(named.length).toBeGreaterThan(0);
    expect(stillAlive(named)).toEqual([]);
  }, 120_000);

  test('the conforming target passes', async () => {
    const result = await run('conforming', [id]);
    const check = result.checks.find((c) => c.id === id);
    expect(check?.status, check?.message).toBe('pass');
  }, 120_000);
});
