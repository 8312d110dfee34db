import { existsSync } from 'node:fs';
import { expect, test } from 'vitest';
import { sweepLoad } from './load.js';
import { selected, sweepSeeds } from './sweep.js';
import { COMPATIBILITY_TABLES } from './tables.js';

test('the sweep takes comma-separated seeds, and refuses anything else rather than sweep seed 0', () => {
  expect(sweepSeeds('4, 5,6')).toEqual([4, 5, 6]);
  for (const bad of ['', '1,,2', 'a', '-1', '1.5', '99999999999999999999']) {
    expect(() => sweepSeeds(bad), bad).toThrow(/WIRECHECK_SWEEP_SEEDS/);
  }
});

test('the sweep picks targets by a part of their column name, and refuses a name that picks nothing', () => {
  expect(selected('fastmcp sse', '')).toBe(true);
  expect(selected('fastmcp sse', 'fastmcp,memory')).toBe(true);
  expect(selected('memory stdio', 'fastmcp, memory')).toBe(true);
  expect(selected('SDK stdio', 'fastmcp,memory')).toBe(false);
  expect(selected('references', 'references')).toBe(true);
  expect(() => selected('fastmcp sse', 'fastmpc')).toThrow(/fastmpc names no target/);
});

test('the sweep load is a small whole number of busy processes', () => {
  expect(sweepLoad('0')).toBe(0);
  expect(sweepLoad('3')).toBe(3);
  for (const bad of ['', '-1', '1.5', 'two', '17'])
    expect(() => sweepLoad(bad), bad).toThrow(/WIRECHECK_SWEEP_LOAD/);
});

test('every compatibility table has its sweep file', () => {
  for (const suite of Object.keys(COMPATIBILITY_TABLES)) {
    expect(existsSync(new URL(`./${suite}.sweep.ts`, import.meta.url)), suite).toBe(true);
  }
});
