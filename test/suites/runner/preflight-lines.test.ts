import { expect, test } from 'vitest';
import { toolUse } from '../../../src/suites/runner/lines.js';
import { preflightProblem } from '../../../src/suites/runner/preflight.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';
import { sessionRunOf } from './timed-run.js';

const probe = toolUse('echo wirecheck-probe', { id: 'toolu_preflight' });
const result = JSON.stringify({
  type: 'tool_result',
  tool_use_id: 'toolu_preflight',
  content: 'wirecheck-probe\n',
  is_error: false,
});

/** The preflight session of a runner that printed `texts` on stdout (and `droppedLines` more). */
function printed(texts: readonly string[], droppedLines = 0): SessionRun {
  return sessionRunOf({
    spec: { lines: [probe], timeoutS: 5, budgetMs: 20_000 },
    outputs: texts.map((text, i) => ({ text, atMs: 10 + i, read: 1 })),
    droppedLines,
  });
}

test('one result line, and nothing else, passes the preflight', () => {
  expect(preflightProblem(printed([result]))).toBeUndefined();
});

test('a result line that answers badly still passes: the checks judge it, the preflight does not', () => {
  const wrong = JSON.stringify({ type: 'tool_result', tool_use_id: 'toolu_other', content: 7 });
  expect(preflightProblem(printed([wrong]))).toBeUndefined();
});

test('a blank line before the result is refused as a blank line', () => {
  expect(preflightProblem(printed(['', result]))).toMatch(
    /^printed a blank line before its first result line: /,
  );
  expect(preflightProblem(printed(['  ', result]))).toMatch(
    /^printed a blank line \(" {2}"\) before its first result line: /,
  );
});

test('several lines before the result are refused with the first named and the others counted', () => {
  expect(preflightProblem(printed(['starting', 'ready', result]))).toMatch(
    /^printed "starting" \(and 1 more line\(s\)\) before its first result line: its stdout must carry only result lines/,
  );
});

test("the probe command's own output before the result is named as such", () => {
  expect(preflightProblem(printed(['wirecheck-probe', result]))).toContain(
    `printed "wirecheck-probe" (the probe command's own output: a command must not write to the runner's stdout) before its first result line`,
  );
});

test('a blank line after the result is refused: it would sit between every two results', () => {
  expect(preflightProblem(printed([result, '']))).toMatch(
    /^printed 2 lines for 1 input line\(s\): after its result line came a blank line: /,
  );
});

test('a second result line is refused like any other extra line', () => {
  expect(preflightProblem(printed([result, result, 'bye']))).toMatch(
    /^printed 3 lines for 1 input line\(s\): after its result line came "\{.*\}" \(and 1 more line\(s\)\): /,
  );
});

test('extra lines only counted (past what a session keeps) are refused too', () => {
  expect(preflightProblem(printed([result], 2))).toMatch(
    /^printed 3 lines for 1 input line\(s\): after its result line came 2 line\(s\) too large to keep: /,
  );
});

test('what the runner wrote on stderr is part of the refusal', () => {
  const run = { ...printed(['runner v1 ready', result]), stderr: 'listening\n' };
  expect(preflightProblem(run)).toMatch(/\(logs go to stderr\); it was given .*; stderr: listening$/);
});

test('no result-shaped line at all keeps its own message: not a runner', () => {
  expect(preflightProblem(printed(['hello', 'world']))).toMatch(
    /^answered a plain tool_use line \(`echo wirecheck-probe`\) with "hello" \(and 1 more line\(s\)\), which is not a tool_result JSON line/,
  );
});
