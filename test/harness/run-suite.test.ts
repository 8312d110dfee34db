import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { OPEN_ALLOWANCE_MS, suiteBudgetMs } from '../../src/harness/budget.js';
import { type Check, CheckFailure, type Suite, TargetUnavailable } from '../../src/harness/check.js';
import { checkProperty } from '../../src/harness/property.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { interruptStop } from '../../src/harness/stop.js';
import { type FakeCheck, fakeSuite } from '../cli/fake-suites.js';

const TARGET = { url: 'http://127.0.0.1:9' };

function statuses(result: Awaited<ReturnType<typeof runSuite>>) {
  return result.checks.map((c) => [c.id, c.status, c.skipKind ?? ''] as const);
}

describe('runSuite: a HarnessBug a check throws', () => {
  for (const concurrent of [false, true]) {
    test(`stops the suite as a harness error and fails nothing (${concurrent ? '--jobs 2' : 'one check at a time'})`, async () => {
      const { suite } = fakeSuite(
        'fake',
        [
          // Under --jobs 2 it runs beside the bug and ends after it: its verdict stands.
          { id: 'fake.fine', outcome: 'pass', delayMs: 100 },
          { id: 'fake.bug', outcome: 'bug' },
          { id: 'fake.after', outcome: 'fail' },
        ],
        { concurrent },
      );
      const result = await runSuite(suite, TARGET, { seed: 1, runs: 10, jobs: concurrent ? 2 : 1 });
      expect(result.stopped).toEqual({
        kind: 'harness-error',
        message:
          'wirecheck failed during fake.bug (a bug of wirecheck or of a suite): fake.bug found a list that leaves it out',
      });
      expect(statuses(result)).toEqual([
        ['fake.fine', 'pass', ''],
        ['fake.bug', 'skip', 'not-run'],
        ['fake.after', 'skip', 'not-run'],
      ]);
      expect(result.summary.failed).toBe(0);
    });
  }
});

describe('runSuite: a close that fails or leaves something behind (a working directory the target made undeletable)', () => {
  const checks: FakeCheck[] = [
    { id: 'fake.a', outcome: 'pass' },
    { id: 'fake.b', outcome: 'fail' },
  ];
  for (const concurrent of [false, true]) {
    test(`a close that throws keeps every verdict and names the failure as a warning (${concurrent ? '--jobs 2' : 'one check at a time'})`, async () => {
      const { suite } = fakeSuite('fake', checks, {
        concurrent,
        closing: { throws: 'EACCES: permission denied' },
      });
      const result = await runSuite(suite, TARGET, { seed: 1, jobs: concurrent ? 2 : 1 });
      expect(statuses(result)).toEqual([
        ['fake.a', 'pass', ''],
        ['fake.b', 'fail', ''],
      ]);
      expect(result.stopped).toBeUndefined();
      expect(result.warnings).toEqual(['closing the suite failed: EACCES: permission denied']);
    });
  }

  test('a close that does not finish within its budget (1 s once the run was stopped) is a warning too', async () => {
    const { suite } = fakeSuite('fake', [{ id: 'fake.hang', outcome: 'hang', timeoutMs: 60_000 }], {
      closing: { hangs: true },
    });
    const controller = new AbortController();
    const result = await runSuite(suite, TARGET, {
      seed: 1,
      signal: controller.signal,
      onStart: () => setTimeout(() => controller.abort(interruptStop('SIGINT')), 50),
    });
    expect(result.warnings).toEqual([
      'closing the suite did not finish within 1000 ms: processes it started or files it worked in may remain',
    ]);
  });

  test("a close's warning is scrubbed of what the target was given, as every result text is", async () => {
    const { suite } = fakeSuite('fake', checks, {
      closing: { warns: 'could not remove /tmp/s3cret-value-42/x' },
    });
    const scrubbed = {
      ...suite,
      scrubber: () => (text: string) => text.replaceAll('s3cret-value-42', '[redacted]'),
    };
    expect((await runSuite(scrubbed, TARGET, { seed: 1 })).warnings).toEqual([
      'could not remove /tmp/[redacted]/x',
    ]);
  });

  test("a close's warning is the run's; a clean close leaves no warnings field", async () => {
    const left = fakeSuite('fake', checks, {
      closing: { warns: 'the working directory /tmp/x could not be removed' },
    });
    expect((await runSuite(left.suite, TARGET, { seed: 1 })).warnings).toEqual([
      'the working directory /tmp/x could not be removed',
    ]);
    const clean = fakeSuite('fake', checks);
    expect('warnings' in (await runSuite(clean.suite, TARGET, { seed: 1 }))).toBe(false);
  });
});

describe('runSuite: what each check really did', () => {
  test('a check that caps its property runs records the runs it used; a check without a property records none', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.capped', outcome: 'pass', propertyRuns: 15 },
      { id: 'fake.full-runs', outcome: 'pass', propertyRuns: 100 },
      { id: 'fake.plain', outcome: 'pass' },
    ]);
    const result = await runSuite(suite, TARGET, { seed: 1, runs: 100 });
    expect(result.runs).toBe(100);
    expect(result.checks.map((c) => [c.id, c.runs])).toEqual([
      ['fake.capped', 15],
      ['fake.full-runs', 100],
      ['fake.plain', undefined],
    ]);
  });

  test('with several properties the smallest run count is the one recorded', async () => {
    const check: Check<object> = {
      id: 'two.props',
      clause: 'c',
      description: 'd',
      level: 'must',
      basis: 'spec',
      rule: 'A rule of a test suite, stated for every target.',
      async run(_ctx, env) {
        await checkProperty(env, fc.nat(), async () => {});
        await checkProperty(env, fc.nat(), async () => {}, { runs: 7 });
      },
    };
    const suite: Suite<object, object> = {
      name: 'two',
      description: 'two properties',
      checks: [check],
      describeTarget: () => 'x',
      targetArgs: () => [],
      open: async () => ({ close: async () => {} }),
    };
    const result = await runSuite(suite, {}, { seed: 1, runs: 20 });
    expect(result.checks[0]?.runs).toBe(7);
  });

  test('every result carries its tier, and the plan names the tiers that run', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.quick', outcome: 'pass' },
      { id: 'fake.slow', outcome: 'pass', tier: 'full' },
    ]);
    const plans: unknown[] = [];
    const only = await runSuite(suite, TARGET, {
      seed: 1,
      only: ['fake.slow'],
      onBegin: (p) => plans.push(p),
    });
    expect(only.checks.map((c) => c.tier)).toEqual(['full']);
    expect(plans[0]).toMatchObject({ tiers: ['full'], checks: [{ id: 'fake.slow', tier: 'full' }] });
    await runSuite(suite, TARGET, { seed: 1, full: true, onBegin: (p) => plans.push(p) });
    expect(plans[1]).toMatchObject({ tiers: ['quick', 'full'] });
    await runSuite(suite, TARGET, { seed: 1, onBegin: (p) => plans.push(p) });
    expect(plans[2]).toMatchObject({ tiers: ['quick'] });
  });

  test('skip kinds: not applicable, not exercised', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.na', outcome: 'skip' },
      { id: 'fake.ne', outcome: 'not-exercised' },
    ]);
    const result = await runSuite(suite, TARGET, { seed: 1 });
    expect(statuses(result)).toEqual([
      ['fake.na', 'skip', 'not-applicable'],
      ['fake.ne', 'skip', 'not-exercised'],
    ]);
    expect(result.summary).toEqual({
      passed: 0,
      failed: 0,
      warned: 0,
      skipped: 2,
      notExercised: 1,
    });
  });
});

describe('runSuite: a run that stops early', () => {
  test('after a TargetGone the rest are not run and the run says why once', async () => {
    const { suite, ran } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'pass' },
      { id: 'fake.b', outcome: 'gone', level: 'should' },
      { id: 'fake.c', outcome: 'pass' },
      { id: 'fake.d', outcome: 'pass' },
    ]);
    const result = await runSuite(suite, TARGET, { seed: 1 });
    expect(ran.map((r) => r.id)).toEqual(['fake.a', 'fake.b']);
    expect(statuses(result)).toEqual([
      ['fake.a', 'pass', ''],
      ['fake.b', 'fail', ''],
      ['fake.c', 'skip', 'not-run'],
      ['fake.d', 'skip', 'not-run'],
    ]);
    expect(result.stopped).toEqual({
      kind: 'target-gone',
      message: 'the target stopped during fake.b: the target exited with status 1',
    });
    expect(result.summary.notRun).toBe(2);
  });

  test('the stop signal abandons the running check even if it ignores its own signal, closes the suite and marks the rest not run', async () => {
    const { suite, events } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'pass' },
      { id: 'fake.hang', outcome: 'hang', timeoutMs: 60_000 },
      { id: 'fake.c', outcome: 'pass' },
    ]);
    const controller = new AbortController();
    const started = performance.now();
    const result = await runSuite(suite, TARGET, {
      seed: 1,
      signal: controller.signal,
      onStart: (id) => {
        if (id === 'fake.hang') setTimeout(() => controller.abort(interruptStop('SIGINT')), 50);
      },
    });
    // Only waiting out the check's 60 s is the fault: a bound near the real time fails under load.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(statuses(result)).toEqual([
      ['fake.a', 'pass', ''],
      ['fake.hang', 'skip', 'not-run'],
      ['fake.c', 'skip', 'not-run'],
    ]);
    expect(result.checks[1]?.message).toBe('not run: interrupted by SIGINT while it ran');
    expect(result.checks[2]?.message).toBe('not run: interrupted by SIGINT');
    expect(result.stopped).toEqual({
      kind: 'interrupted',
      signal: 'SIGINT',
      message: 'interrupted by SIGINT',
    });
    expect(events).toEqual(['open', 'close']);
  });

  test('a stop while the suite opens: nothing runs, and the context is closed once it arrives', async () => {
    const { suite, ran, events } = fakeSuite('fake', [{ id: 'fake.a', outcome: 'pass' }], { openMs: 3_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(interruptStop('SIGTERM')), 20);
    const started = performance.now();
    const result = await runSuite(suite, TARGET, { seed: 1, signal: controller.signal });
    // Only waiting for the 3 s open is the fault: a bound near the real time fails under load.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(ran).toEqual([]);
    expect(statuses(result)).toEqual([['fake.a', 'skip', 'not-run']]);
    expect(result.stopped?.signal).toBe('SIGTERM');
    expect(events).toEqual(['open']);
    const until = performance.now() + 20_000;
    while (events.length < 2 && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual(['open', 'close']);
  });

  test("the suite's open gets the run's stop signal, so a probe of the target can end when the run is stopped", async () => {
    let seen: AbortSignal | undefined;
    const suite: Suite<object, object> = {
      name: 'probe',
      description: 'a suite whose open waits on its probe',
      checks: [
        {
          id: 'probe.a',
          clause: 'c',
          description: 'd',
          level: 'must',
          basis: 'spec',
          rule: 'A rule.',
          run: async () => {},
        },
      ],
      describeTarget: () => 'x',
      targetArgs: () => [],
      async open(_target, env) {
        seen = env.signal;
        await new Promise((resolve) => env.signal?.addEventListener('abort', resolve));
        return { close: async () => {} };
      },
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(interruptStop('SIGINT')), 20);
    const result = await runSuite(suite, {}, { seed: 1, signal: controller.signal });
    expect(seen?.aborted).toBe(true);
    expect(result.stopped?.kind).toBe('interrupted');
  });

  test('a check that ignores its abort signal is cut at its own budget and fails; the run goes on', async () => {
    const { suite } = fakeSuite('fake', [
      { id: 'fake.hang', outcome: 'hang', timeoutMs: 100 },
      { id: 'fake.next', outcome: 'pass' },
    ]);
    const started = performance.now();
    const result = await runSuite(suite, TARGET, { seed: 1 });
    // The hanging check never ends by itself: only a hang is the fault, and a bound near the
    // real time fails under load.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(statuses(result)).toEqual([
      ['fake.hang', 'fail', ''],
      ['fake.next', 'pass', ''],
    ]);
    expect(result.checks[0]?.message).toBe('check did not finish within 100 ms');
  });

  test("the suite's time budget cuts the running check (a failure whatever its level) and the rest are not run", async () => {
    const { suite, events } = fakeSuite('fake', [
      { id: 'fake.a', outcome: 'pass' },
      { id: 'fake.hang', outcome: 'hang', level: 'should', timeoutMs: 60_000 },
      { id: 'fake.c', outcome: 'pass' },
    ]);
    const started = performance.now();
    const result = await runSuite(suite, TARGET, { seed: 1, budgetMs: 200 });
    // Only waiting out the check's 60 s is the fault: a bound near the real time fails under load.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.budgetMs).toBe(200);
    expect(statuses(result)).toEqual([
      ['fake.a', 'pass', ''],
      ['fake.hang', 'fail', ''],
      ['fake.c', 'skip', 'not-run'],
    ]);
    expect(result.checks[1]?.message).toMatch(
      /^the suite's time budget of 200 ms was used up while this check ran/,
    );
    expect(result.checks[2]?.message).toBe(
      "not run: the suite's time budget of 200 ms was used up (during fake.hang)",
    );
    expect(result.stopped?.kind).toBe('budget');
    expect(events).toEqual(['open', 'close']);
  });

  test('a suite that does not open within its whole budget is a target that cannot be reached', async () => {
    const { suite } = fakeSuite('fake', [{ id: 'fake.a', outcome: 'pass' }], { openMs: 500 });
    await expect(runSuite(suite, TARGET, { seed: 1, budgetMs: 50 })).rejects.toThrow(TargetUnavailable);
  });

  test('the default budget adds up the selected checks and an allowance for opening', async () => {
    expect(suiteBudgetMs([{ timeoutMs: 1_000 }, {}, { timeoutMs: 500 }])).toBe(
      1_000 + 30_000 + 500 + OPEN_ALLOWANCE_MS,
    );
    const checks: FakeCheck[] = [
      { id: 'fake.a', outcome: 'pass', timeoutMs: 1_000 },
      { id: 'fake.b', outcome: 'pass', tier: 'full', timeoutMs: 9_000 },
    ];
    const result = await runSuite(fakeSuite('fake', checks).suite, TARGET, { seed: 1 });
    expect(result.budgetMs).toBe(1_000 + OPEN_ALLOWANCE_MS);
  });

  test("a target's budgetScale (a client given longer to start) multiplies each check's budget and the suite's", async () => {
    const checks: FakeCheck[] = [{ id: 'fake.slow', outcome: 'pass', timeoutMs: 100, delayMs: 250 }];
    const plain = await runSuite(fakeSuite('fake', checks).suite, TARGET, { seed: 1 });
    expect(plain.checks[0]?.message).toBe('check did not finish within 100 ms');
    const scaled = { ...fakeSuite('fake', checks).suite, budgetScale: () => 4 };
    const result = await runSuite(scaled, TARGET, { seed: 1 });
    expect(result.checks[0]?.status).toBe('pass');
    expect(result.budgetMs).toBe(4 * (100 + OPEN_ALLOWANCE_MS));
    // Never below 1: a scale cannot shorten a budget.
    expect(suiteBudgetMs([{ timeoutMs: 100 }], 0.5)).toBe(100 + OPEN_ALLOWANCE_MS);
  });

  test("a suite's openMs (a server it starts and waits for) replaces the open allowance where longer", async () => {
    const checks: FakeCheck[] = [{ id: 'fake.a', outcome: 'pass', timeoutMs: 100 }];
    const starting = { ...fakeSuite('fake', checks).suite, openMs: () => OPEN_ALLOWANCE_MS + 100_000 };
    expect((await runSuite(starting, TARGET, { seed: 1 })).budgetMs).toBe(100 + OPEN_ALLOWANCE_MS + 100_000);
    const quick = { ...fakeSuite('fake', checks).suite, openMs: () => 10 };
    expect((await runSuite(quick, TARGET, { seed: 1 })).budgetMs).toBe(100 + OPEN_ALLOWANCE_MS);
  });
});

describe('runSuite: what a failure quotes is bounded', () => {
  test('a message, expected and actual of a megabyte each are cut, noting their length, and the evidence is bounded', async () => {
    const huge = 'x'.repeat(1024 * 1024);
    const suite: Suite<null, object> = {
      name: 'big',
      description: 'a check that quotes a megabyte a target sent',
      describeTarget: () => 'fixed',
      targetArgs: () => [],
      async open() {
        return { close: async () => {} };
      },
      checks: [
        {
          id: 'big.quote',
          clause: 'none',
          description: 'quotes what arrived',
          level: 'must',
          basis: 'spec',
          rule: 'a rule',
          async run() {
            const messages = Array.from({ length: 2000 }, (_, n) => ({
              atMs: n,
              session: 'stdio',
              direction: 'received' as const,
              text: huge,
            }));
            throw new CheckFailure(`got ${huge}`, huge, `🙂${huge}`, {
              kind: 'jsonrpc',
              title: 'the case',
              messages,
              mark: 1990,
            });
          },
        },
      ],
    };
    const result = await runSuite(suite, null, { seed: 1, runs: 1 });
    const check = result.checks[0];
    expect(check?.status).toBe('fail');
    expect(check?.message).toBe(`got ${'x'.repeat(4092)}... (1048580 characters)`);
    expect(check?.expected).toBe(`${'x'.repeat(16_384)}... (1048576 characters)`);
    expect(check?.actual).toBe(`🙂${'x'.repeat(16_382)}... (1048578 characters)`);
    // Its evidence too: a window of messages around the mark, each text clipped.
    const evidence = check?.evidence;
    if (evidence?.kind !== 'jsonrpc') throw new Error('no jsonrpc evidence');
    expect(evidence.messages).toHaveLength(1000);
    expect(evidence.messages[evidence.mark ?? -1]?.atMs).toBe(1990);
    expect(evidence.messages[0]?.text).toBe(`${'x'.repeat(4096)}... (1048576 characters)`);
  });
});

describe('runSuite: what the target was given that no report may show (Suite.scrubber)', () => {
  const SECRET = 'Bearer s3cret-value-42';
  const suiteQuoting = (openThrows: boolean): Suite<null, object> => ({
    name: 'echo',
    description: 'a target that echoes the credential it was given',
    // The user's own start command may carry it too.
    describeTarget: () => 'started by serve --require-header "Authorization: Bearer s3cret-value-42"',
    targetArgs: () => ['--start', 'serve --require-header "Authorization: Bearer s3cret-value-42"'],
    scrubber: () => (text) => text.replaceAll('s3cret-value-42', '[redacted]'),
    async open() {
      if (openThrows) throw new TargetUnavailable(`HTTP 401: bad token ${SECRET}`);
      return { close: async () => {} };
    },
    checks: [
      {
        id: 'echo.quote',
        clause: 'none',
        description: 'quotes what arrived',
        level: 'must',
        basis: 'spec',
        rule: 'a rule',
        async run() {
          throw new CheckFailure(`the server said "token s3cret-value-42 refused"`, 'a result', SECRET, {
            kind: 'jsonrpc',
            title: 'the case',
            messages: [{ atMs: 0, session: 'main', direction: 'received', text: `{"error":"${SECRET}"}` }],
          });
        },
      },
    ],
  });

  test('is hidden in every text of every result, keeping what is around it', async () => {
    const result = await runSuite(suiteQuoting(false), null, { seed: 1, runs: 1 });
    expect(JSON.stringify(result)).not.toContain('s3cret-value-42');
    expect(result.checks[0]?.message).toBe('the server said "token [redacted] refused"');
    expect(result.checks[0]?.actual).toBe('Bearer [redacted]');
    expect(result.target).toBe('started by serve --require-header "Authorization: Bearer [redacted]"');
    expect(result.checks[0]?.reproduce).toContain(
      `'serve --require-header "Authorization: Bearer [redacted]"'`,
    );
  });

  test('is hidden in the message of a target that cannot be reached', async () => {
    await expect(runSuite(suiteQuoting(true), null, { seed: 1, runs: 1 })).rejects.toThrow(
      /^HTTP 401: bad token Bearer \[redacted\]$/,
    );
  });
});
