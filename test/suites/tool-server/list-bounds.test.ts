import { expect, test } from 'vitest';
import { readTools } from '../../../src/suites/tool-server/listed-tools.js';
import { toolsListProblems } from '../../../src/suites/tool-server/rules.js';

// zod describes every bad element of an array or record, one issue each: a list of a million
// (a few MB from a server) made a million problems, or overflowed zod's stack. Each is judged
// up to its first bad element now, and a list up to its first 20 problems.

const MILLION = 1_000_000;
const GOOD = {
  name: 'ok',
  inputSchema: { type: 'object', properties: { x: { type: 'string', description: 'x' } } },
};

function millionProperties(): Record<string, unknown> {
  const properties: Record<string, unknown> = { first: { type: 'string' } };
  for (let i = 0; i < MILLION; i++) properties[`p${i}`] = 0;
  return properties;
}

test('a million malformed tools: the first 20 problems, then how many were listed; the good tool is still read', () => {
  const page = { tools: [GOOD, ...Array(MILLION).fill(0)] };
  const problems = toolsListProblems(page);
  expect(problems).toHaveLength(21);
  expect(problems[0]).toMatch(/^tools\[1\]\.Invalid input: expected object, received number$/);
  expect(problems[20]).toBe(
    `and more: tools[21] and the tools after it were not judged (${MILLION + 1} listed)`,
  );
  const { tools, unread } = readTools([page]);
  expect(tools.map((t) => t.name)).toEqual(['ok']);
  expect(unread.count).toBe(MILLION);
});

test.each([
  [
    'properties',
    { type: 'object', properties: millionProperties() },
    /^tools\[0\] \(big\)\.inputSchema\.properties\.p0: /,
  ],
  [
    'type list',
    { type: 'object', properties: { x: { type: Array(MILLION).fill(0) } } },
    /^tools\[0\] \(big\)\.inputSchema\.properties\.x\.type/,
  ],
  [
    'required',
    { type: 'object', required: Array(MILLION).fill(0) },
    /^tools\[0\] \(big\)\.inputSchema\.required\.0: /,
  ],
])('a tool with a million bad %s is one problem, naming the first', (_, inputSchema, first) => {
  const problems = toolsListProblems({ tools: [{ name: 'big', inputSchema }] });
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(first);
  expect(readTools([{ tools: [{ name: 'big', inputSchema }] }]).unread.count).toBe(1);
});

test('a well-formed list has no problem, and every tool is read', () => {
  const page = {
    tools: [GOOD, { ...GOOD, name: 'two', inputSchema: { type: 'object', properties: { y: true } } }],
  };
  expect(toolsListProblems({ tools: [GOOD] })).toEqual([]);
  expect(readTools([{ tools: [GOOD] }]).tools).toHaveLength(1);
  // A boolean property schema is no object: the list check names it; the rest of the suite leaves the tool out.
  expect(toolsListProblems(page)).toHaveLength(1);
});
