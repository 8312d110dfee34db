import { expect, test } from 'vitest';
import { CheckFailure, NotExercised } from '../../src/harness/check.js';
import { judgeLeftovers, LeftoverLedger, noneLeftCheck } from '../../src/harness/containment/index.js';
import { checkEnv } from '../check-env.js';

const sleep = { pid: 4242, command: 'sleep 317' };

test('nothing left by any run passes', () => {
  expect(() => judgeLeftovers('the client', [{ label: 'run 1', survivors: [] }], true)).not.toThrow();
});

test('a run that left a process fails, naming the command, the run and each pid with its command line', () => {
  let failure: CheckFailure | undefined;
  try {
    judgeLeftovers(
      'the client command "node c.js"',
      [
        { label: 'run 1', survivors: [] },
        { label: 'run 2', survivors: [sleep, { pid: 4243, command: 'node helper.js' }] },
      ],
      true,
    );
  } catch (e) {
    failure = e as CheckFailure;
  }
  expect(failure).toBeInstanceOf(CheckFailure);
  expect(failure?.message).toContain(
    'the client command "node c.js" left 2 processes running after it ended, in 1 of 2 runs',
  );
  expect(failure?.actual).toBe('run 2: pid 4242: sleep 317; pid 4243: node helper.js');
});

test('a run that left a crowd is named by its first five processes', () => {
  const crowd = Array.from({ length: 40 }, (_, i) => ({ pid: 1000 + i, command: 'sleep 317' }));
  const failure = failureOf(() =>
    judgeLeftovers('the runner', [{ label: 'case 1', survivors: crowd }], true),
  );
  expect(failure?.message).toMatch(/case 1: sleep 317; (sleep 317; ){4}and 35 more$/);
  expect(failure?.actual).toMatch(/^case 1: pid 1000: sleep 317; (pid \d+: sleep 317; ){4}and 35 more$/);
});

test('the message names no pid and lists the runs by label, so one seed gives one text whatever order they ended in', () => {
  const ended = [
    { label: 'the session in /w/b', survivors: [{ pid: 7001, command: 'sleep 315' }] },
    { label: 'the session in /w/a', survivors: [{ pid: 7002, command: 'sleep 314' }] },
  ];
  const first = failureOf(() => judgeLeftovers('the runner', ended, true));
  const reversed = failureOf(() => judgeLeftovers('the runner', [...ended].reverse(), true));
  expect(first?.message).toBe(
    'the runner left 2 processes running after it ended, in 2 of 2 runs (wirecheck killed them):\nthe session in /w/a: sleep 314\nthe session in /w/b: sleep 315',
  );
  expect(reversed?.message).toBe(first?.message);
  expect(first?.actual).toBe(
    'the session in /w/a: pid 7002: sleep 314\nthe session in /w/b: pid 7001: sleep 315',
  );
});

function failureOf(judge: () => void): CheckFailure | undefined {
  try {
    judge();
  } catch (e) {
    if (e instanceof CheckFailure) return e;
    throw e;
  }
  return undefined;
}

test('no process ended, or no /proc to look in: not exercised, never a pass', () => {
  expect(() => judgeLeftovers('the agent', [], true)).toThrow(NotExercised);
  expect(() => judgeLeftovers('the agent', [{ label: 'case a', survivors: [sleep] }], false)).toThrow(
    NotExercised,
  );
});

test('the ledger records finished runs, skips runs that never started, and waits for the ones still running', async () => {
  const ledger = new LeftoverLedger();
  let finish: (run: { survivors: (typeof sleep)[] }) => void = () => {};
  const late = new Promise<{ survivors: (typeof sleep)[] }>((resolve) => {
    finish = resolve;
  });
  await ledger.track('run 1', Promise.resolve({ survivors: [] }));
  await ledger.track('never started', Promise.resolve({ spawnError: new Error('ENOENT'), survivors: [] }));
  void ledger.track('run 2', late);
  const settled = ledger.settled();
  setTimeout(() => finish({ survivors: [sleep] }), 20);
  await settled;
  expect(ledger.processes()).toEqual([
    { label: 'run 1', survivors: [] },
    { label: 'run 2', survivors: [sleep] },
  ]);
});

test('settled() gives up when the check is aborted', async () => {
  const ledger = new LeftoverLedger();
  void ledger.track('forever', new Promise<{ survivors: [] }>(() => {}));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  await ledger.settled(controller.signal);
  expect(ledger.processes()).toEqual([]);
});

test('the check is should level, states its rule, and is named <suite>.processes.none-left', async () => {
  const ledger = new LeftoverLedger();
  ledger.record('case x', [sleep]);
  const check = noneLeftCheck<object>({
    suite: 'demo',
    what: () => 'the demo command',
    ledger: () => ledger,
    clause: 'c',
    rule: 'A demo rule, stated for every target.',
  });
  expect(check.id).toBe('demo.processes.none-left');
  expect([check.level, check.basis]).toEqual(['should', 'protocol-should']);
  const env = checkEnv();
  await expect(check.run({}, env)).rejects.toThrow(/the demo command left 1 process running/);
});
