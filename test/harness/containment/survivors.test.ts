import { expect, test } from 'vitest';
import { leftBy, withinGrace } from '../../../src/harness/containment/spawn.js';

// What a target left running, judged from the processes of its enclosure at close: the pure part
// of ContainedTarget.close() (spawn.ts).

const TOP = 100;
const member = (pid: number, pgid: number | undefined, state: string | undefined = 'S') => ({
  pid,
  pgid,
  state,
});

test('a target that ended by itself left what lives in its own group as well as outside it', () => {
  const members = [member(TOP, TOP), member(101, TOP), member(102, 555), member(103, TOP, 'R')];
  expect(leftBy(TOP, members, true)).toEqual([
    { pid: 101, inGroup: true },
    { pid: 102, inGroup: false },
    { pid: 103, inGroup: true },
  ]);
});

test("a target wirecheck signalled is judged on what lives outside its group only: the group's kill ended the rest", () => {
  const members = [member(TOP, TOP), member(101, TOP), member(102, 555)];
  expect(leftBy(TOP, members, false)).toEqual([{ pid: 102, inGroup: false }]);
});

test('neither the target itself, nor a zombie, nor a process gone since it was listed counts', () => {
  const members = [
    member(TOP, TOP, 'R'),
    member(101, TOP, 'Z'),
    { pid: 102, pgid: undefined, state: undefined },
    member(103, 7, 'Z'),
  ];
  expect(leftBy(TOP, members, true)).toEqual([]);
});

test('a process of the group gets the group grace to end by itself, one outside it the settle', () => {
  const graces = { outsideMs: 250, groupMs: 2000 };
  const inGroup = { pid: 1, inGroup: true };
  const outside = { pid: 2, inGroup: false };
  expect(withinGrace(inGroup, 1999, graces)).toBe(true);
  expect(withinGrace(inGroup, 2000, graces)).toBe(false);
  expect(withinGrace(outside, 249, graces)).toBe(true);
  expect(withinGrace(outside, 250, graces)).toBe(false);
});
