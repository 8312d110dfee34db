import { describe, expect, test } from 'vitest';
import {
  type LoadMark,
  type LoadProbe,
  parsePidStat,
  parseProcStat,
  treeTicks,
} from '../../src/bench/cpu-load.js';
import { runInterleaved } from '../../src/bench/interleave.js';
import { QuietGate } from '../../src/bench/quiet.js';

/** A probe that reports, for each stretch measured, the next share of a script (then the last one). */
function scriptedProbe(shares: number[]): LoadProbe & { looks: number } {
  let i = 0;
  const probe = {
    looks: 0,
    mark: (): LoadMark => ({ machine: { busy: 0, total: 0 }, own: 0, at: performance.now() }),
    othersShare: () => {
      probe.looks++;
      const share = shares[Math.min(i, shares.length - 1)]!;
      i++;
      return share;
    },
  };
  return probe;
}

const noSleep = async () => {};
const variant = (name: string, calls: string[]) => ({
  name,
  run: async () => {
    calls.push(name);
    return calls.length;
  },
});

describe('load of other processes, read from /proc', () => {
  test('the cpu line of /proc/stat gives busy and total ticks (idle and iowait are idle)', () => {
    const t = parseProcStat('cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 1 2 3 4\n');
    expect(t).toEqual({ busy: 161, total: 981 });
    expect(() => parseProcStat('intr 1 2 3')).toThrow(/"cpu" line/);
  });

  test('a /proc/<pid>/stat line gives parent and CPU ticks, even with spaces and parentheses in the name', () => {
    const fields = ['S', '7', ...Array(9).fill('0'), '10', '20', '3', '4', '0'].join(' ');
    expect(parsePidStat(`42 (node (worker) x) ${fields}`)).toEqual({ pid: 42, ppid: 7, ticks: 37 });
    expect(parsePidStat('garbage')).toBeUndefined();
  });

  test('this process has CPU ticks of its own in its tree', () => {
    for (let i = 0; i < 2e6; i++) Math.sqrt(i);
    expect(treeTicks(process.pid)).toBeGreaterThan(0);
  });
});

describe('waiting for a quiet machine (the issue: each run waits for quiet and is redone when disturbed)', () => {
  test('on a quiet machine nothing is waited for, redone or noted', async () => {
    const probe = scriptedProbe([0.01]);
    const gate = new QuietGate({ probe, budgetMs: 60_000, sleep: noSleep });
    const calls: string[] = [];
    const samples = await runInterleaved([variant('a', calls), variant('b', calls)], {
      rounds: 3,
      warmupRounds: 1,
      gate,
    });
    expect(calls).toHaveLength(8);
    expect(samples.a).toHaveLength(3);
    expect(gate.takeNote()).toBeUndefined();
    expect(gate.spent).toBe(0);
  });

  test('a disturbed round is thrown away and run again, all variants in the same order, so rounds stay paired', async () => {
    // Round 1 disturbed, its redo quiet; round 2 quiet.
    const probe = scriptedProbe([0.5, 0.0, 0.0]);
    const gate = new QuietGate({ probe, budgetMs: 60_000, sleep: noSleep, checkMs: 1 });
    const calls: string[] = [];
    const samples = await runInterleaved([variant('a', calls), variant('b', calls)], {
      rounds: 2,
      warmupRounds: 0,
      gate,
    });
    // a b (disturbed), a b (redo), then b a (round 2 rotates).
    expect(calls).toEqual(['a', 'b', 'a', 'b', 'b', 'a']);
    expect(samples).toEqual({ a: [3, 6], b: [4, 5] });
    expect(gate.takeNote()).toBe('1 disturbed round redone');
  });

  test('a round still disturbed after the allowed redos is kept, and the note says the bench gave up waiting', async () => {
    const probe = scriptedProbe([0.6]);
    const logs: string[] = [];
    const gate = new QuietGate({
      probe,
      budgetMs: 60_000,
      maxWaitMs: 0,
      maxRedos: 2,
      sleep: noSleep,
      log: (l) => logs.push(l),
    });
    const calls: string[] = [];
    const samples = await runInterleaved([variant('a', calls)], { rounds: 1, warmupRounds: 0, gate });
    expect(calls).toEqual(['a', 'a', 'a']);
    expect(samples.a).toEqual([3]);
    expect(gate.takeNote()).toMatch(
      /^1 of 1 rounds measured while other processes used up to 60% of the CPUs \(gave up waiting for a quiet machine\); 2 disturbed rounds redone$/,
    );
    expect(logs.join('\n')).toMatch(/gave up waiting/);
  });

  test('with no budget (--quick, --max-wait 0) nothing is waited for or redone, but the load is noted', async () => {
    const probe = scriptedProbe([0.9]);
    const gate = new QuietGate({ probe, budgetMs: 0, sleep: noSleep });
    await gate.look();
    const calls: string[] = [];
    await runInterleaved([variant('a', calls)], { rounds: 2, warmupRounds: 0, gate });
    expect(calls).toEqual(['a', 'a']);
    expect(gate.takeNote()).toMatch(
      /^2 of 2 rounds measured while other processes used up to 90% of the CPUs/,
    );
  });

  test('after a disturbed round the gate looks at the machine before the next one and starts when it is quiet', async () => {
    // look (busy), look (quiet), then the round itself is quiet.
    const probe = scriptedProbe([0.8, 0.8, 0.0, 0.0]);
    let slept = 0;
    const gate = new QuietGate({
      probe,
      budgetMs: 60_000,
      maxRedos: 0,
      checkMs: 5,
      sleep: async (ms) => {
        slept += ms;
      },
    });
    await gate.look();
    await gate.before();
    expect(slept).toBe(15);
    expect(gate.after()).toBe(false);
    expect(gate.takeNote()).toBeUndefined();
  });

  test('without a probe (no /proc) the gate does nothing', async () => {
    const gate = new QuietGate({ probe: undefined, budgetMs: 60_000 });
    await gate.before();
    expect(gate.after()).toBe(false);
    expect(await gate.look()).toBe(0);
    expect(gate.takeNote()).toBeUndefined();
  });
});
