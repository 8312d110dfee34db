import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BARE_STARTS, measureBareStart } from '../../src/harness/bare-start.js';
import type { Check, Suite } from '../../src/harness/check.js';
import { runCommand } from '../../src/harness/run-command.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { createSlots } from '../../src/harness/slots.js';
import { prescribedWaitMs } from '../../src/harness/target-starts.js';
import { DEFAULT_TIMEOUT_S } from '../../src/protocol/bash/index.js';
import { formatTargetStarts } from '../../src/reporters/console.js';
import { agentSuite } from '../../src/suites/agent/suite.js';
import { messagesClientSuite } from '../../src/suites/messages-client/suite.js';
import { runnerSuite } from '../../src/suites/runner/suite.js';
import { toolClientSuite } from '../../src/suites/tool-client/suite.js';
import { referenceToolServerCommand, toolServerSuite } from '../../src/suites/tool-server/index.js';
import { KEEP_CLIENT_WARM } from '../../src/warm/advice.js';

/** A suite whose checks each start `starts` processes of `true`, concurrently or not. */
function startingSuite(checks: number, starts: number, withBare: boolean): Suite<object, object> {
  const list: Check<object>[] = Array.from({ length: checks }, (_, i) => ({
    id: `s.check-${i}`,
    clause: 'c',
    description: 'd',
    level: 'must',
    basis: 'spec',
    rule: 'A rule of the test.',
    async run() {
      for (let k = 0; k < starts; k++) await runCommand('true', { env: process.env, timeoutMs: 5000 });
    },
  }));
  return {
    name: 's',
    description: 'starts processes',
    concurrent: true,
    checks: list,
    describeTarget: () => 'true',
    targetArgs: () => [],
    open: async () => ({ close: async () => {} }),
    ...(withBare ? { bareStart: () => ({ what: 'client', command: 'true', env: process.env }) } : {}),
  };
}

describe('target starts: counted per run, one bare start timed', () => {
  test('every process the checks start is counted, whatever the jobs, and the bare start is timed once', async () => {
    for (const jobs of [1, 3]) {
      const result = await runSuite(startingSuite(4, 3, true), {}, { seed: 1, jobs });
      expect(result.targetStarts?.what).toBe('client');
      expect(result.targetStarts?.count).toBe(12);
      expect(result.targetStarts?.bareStartMs).toBeGreaterThanOrEqual(0);
      expect(result.targetStarts).not.toHaveProperty('fasterStart');
    }
    const suite = startingSuite(1, 1, false);
    const told = await runSuite(
      {
        ...suite,
        bareStart: () => ({ what: 'client', command: 'true', env: process.env, fasterStart: 'x' }),
      },
      {},
      { seed: 1 },
    );
    expect(told.targetStarts?.fasterStart).toBe('x');
  }, 60_000);

  test('a suite that names no bare start reports none; two runs at once count their own starts', async () => {
    const [a, b] = await Promise.all([
      runSuite(startingSuite(2, 1, false), {}, { seed: 1 }),
      runSuite(startingSuite(3, 2, true), {}, { seed: 1 }),
    ]);
    expect(a?.targetStarts).toBeUndefined();
    expect(b?.targetStarts?.count).toBe(6);
  }, 60_000);

  test('the summary line says how many starts and what one costs, and when starting is most of the time', () => {
    const line = formatTargetStarts({
      suite: 'messages-client',
      durationMs: 20_000,
      jobs: 2,
      targetStarts: { what: 'client', count: 312, bareStartMs: 41 },
    });
    expect(line).toBe(
      '  messages-client: 312 client starts, 41 ms each (a bare start and exit of the command)',
    );
    const slow = formatTargetStarts({
      suite: 'runner',
      durationMs: 20_000,
      jobs: 2,
      targetStarts: { what: 'runner', count: 100, bareStartMs: 300 },
    });
    expect(slow).toContain(
      "most of the suite's time is starting the runner (docs/performance.md: a target that starts fast)",
    );
    // 100 client starts of 300 ms on 2 jobs (15 s), with the warm kit named, in a run of `durationMs`.
    const client = (durationMs: number) =>
      formatTargetStarts({
        suite: 'messages-client',
        durationMs,
        jobs: 2,
        targetStarts: { what: 'client', count: 100, bareStartMs: 300, fasterStart: KEEP_CLIENT_WARM },
      });
    const head = '  messages-client: 100 client starts, 300 ms each (a bare start and exit of the command)';
    // A suite that names its own remedy (the client suites: the warm kit) is shown that one.
    expect(client(20_000)).toBe(
      `${head}: most of the suite's time is starting the client (${KEEP_CLIENT_WARM})`,
    );
    // From a third of the suite's time, the share is said: 15 s of 40 s is 38%.
    expect(client(40_000)).toBe(
      `${head}: about 38% of the suite's time is starting the client (${KEEP_CLIENT_WARM})`,
    );
    // Below a third, nothing is said: 15 s of 50 s is 30%.
    expect(client(50_000)).toBe(head);
    expect(
      formatTargetStarts({ suite: 'x', durationMs: 1, targetStarts: { what: 'client', count: 0 } }),
    ).toBe(undefined);
  });

  test('a suite that starts processes ahead of one-at-a-time checks: the starts it let overlap divide', () => {
    const run = (atOnce: number | undefined) =>
      formatTargetStarts({
        suite: 'tool-server',
        durationMs: 3000,
        jobs: 1,
        targetStarts: {
          what: 'server',
          count: 12,
          bareStartMs: 200,
          ...(atOnce === undefined ? {} : { atOnce }),
        },
      });
    // 12 x 200 ms = 2.4 s of a 3 s run on one job: mostly starting; over 2 at once, 1.2 s: 40%.
    expect(run(undefined)).toContain("most of the suite's time is starting the server");
    expect(run(2)).toBe(
      "  tool-server: 12 server starts, 200 ms each (a bare start and exit of the command): about 40% of the suite's time is starting the server (docs/performance.md: a target that starts fast)",
    );
  });

  test('the tool server over stdio counts its server processes, times a bare start and says how many started at once', async () => {
    const target = { kind: 'stdio' as const, command: referenceToolServerCommand('stdio') };
    const only = ['tool-server.stdio.exit-on-eof', 'tool-server.stdio.stdout-purity'];
    const ahead = await runSuite(toolServerSuite, target, { seed: 1, jobs: 2, only });
    // The preflight's session and one per check; the spares still waiting when the run ended
    // were never used, so they are not counted: the same count as with --jobs 1.
    expect(ahead.targetStarts).toMatchObject({ what: 'server', count: 3, atOnce: 2 });
    expect(ahead.targetStarts?.bareStartMs).toBeGreaterThan(0);
    const one = await runSuite(toolServerSuite, target, { seed: 1, jobs: 1, only });
    expect(one.targetStarts).toMatchObject({ what: 'server', count: 3 });
    expect(one.targetStarts?.atOnce).toBeUndefined();
    expect(one.checks.map((c) => c.status)).toEqual(ahead.checks.map((c) => c.status));
  }, 60_000);
});

describe('measureBareStart', () => {
  test('times the command BARE_STARTS times and gives the shortest, so one slow start does not move it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-bare-'));
    try {
      const count = join(dir, 'count');
      let done = 0;
      // The first start sleeps 3 s, the second 2.5 s, the third exits at once.
      const command = `n=$(cat ${count} 2>/dev/null || echo 0); echo $((n+1)) > ${count}; [ "$n" = 0 ] && sleep 3; [ "$n" = 1 ] && sleep 2.5; true`;
      const ms = await measureBareStart({
        what: 'client',
        command,
        env: process.env,
        done: () => {
          done++;
        },
      });
      expect(BARE_STARTS).toBe(3);
      expect((await readFile(count, 'utf8')).trim()).toBe('3');
      expect(ms).toBeDefined();
      // The median would be over 2.5 s, the mean over 1.8 s; a start that sleeps not at all
      // stays under 1.5 s even on a loaded machine.
      expect(ms).toBeLessThan(1_500);
      expect(done).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test('a start that cannot finish in time gives no number', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      await measureBareStart({ what: 'client', command: 'true', env: process.env }, controller.signal),
    ).toBe(undefined);
  });
});

describe('prescribedWaitMs', () => {
  test("a suite's longest prescribed wait: the 429's retry-after twice, two 1.5 s replies, the runner's real default (not its kill grace, which no run waits out)", () => {
    expect(prescribedWaitMs([])).toBe(0);
    expect(prescribedWaitMs([{}, { prescribedWaitMs: 5 }, { prescribedWaitMs: 3 }])).toBe(5);
    expect(prescribedWaitMs(messagesClientSuite.checks)).toBe(2000);
    expect(prescribedWaitMs(toolClientSuite.checks)).toBe(3000);
    expect(prescribedWaitMs(runnerSuite.checks)).toBe(DEFAULT_TIMEOUT_S * 1000);
    expect(prescribedWaitMs(agentSuite.checks)).toBe(0);
  });

  test('the client suites point a slow start at the warm kit; runner and agent, which cannot be kept warm, do not', () => {
    expect(messagesClientSuite.bareStart?.({ client: 'c' })?.fasterStart).toBe(KEEP_CLIENT_WARM);
    expect(toolClientSuite.bareStart?.({ client: 'c', transports: ['stdio'] })?.fasterStart).toBe(
      KEEP_CLIENT_WARM,
    );
    // Their bare starts make a work directory each, removed by done().
    for (const bare of [runnerSuite.bareStart?.({ runner: 'r' }), agentSuite.bareStart?.({ agent: 'a' })]) {
      expect(bare?.what).toMatch(/^(runner|agent)$/);
      expect(bare?.fasterStart).toBeUndefined();
      bare?.done?.();
    }
  });

  test('every check that prescribes a wait runs beside the others (schedule waits)', () => {
    for (const suite of [messagesClientSuite, toolClientSuite, runnerSuite, agentSuite])
      for (const check of suite.checks)
        if ((check.prescribedWaitMs ?? 0) > 0)
          expect([check.id, check.schedule]).toEqual([check.id, 'waits']);
  });
});

test('in a run of several suites, the bare start is timed on every job slot of the shared pool, as a check that runs alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-bare-slot-'));
  try {
    const began = join(dir, 'began');
    const suite: Suite<object, object> = {
      ...startingSuite(1, 1, false),
      bareStart: () => ({ what: 'client', command: `touch '${began}'; sleep 0.3`, env: process.env }),
    };
    const slots = createSlots(2);
    const run = runSuite(suite, {}, { seed: 1, jobs: 2, slots });
    let heldWhileTimed: boolean | undefined;
    for (let i = 0; i < 500 && heldWhileTimed === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (existsSync(began)) heldWhileTimed = !slots.tryAcquire();
    }
    const result = await run;
    expect(heldWhileTimed).toBe(true);
    expect(result.targetStarts?.bareStartMs).toBeGreaterThanOrEqual(300);
    expect(slots.tryAcquire()).toBe(true);
    expect(slots.tryAcquire()).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 30_000);
