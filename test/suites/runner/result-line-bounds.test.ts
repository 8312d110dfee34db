import { expect, test } from 'vitest';
import { CheckFailure } from '../../../src/harness/check.js';
import { resultAt } from '../../../src/suites/runner/expect.js';
import { toolUse } from '../../../src/suites/runner/lines.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';
import { bestMs } from '../../side-by-side.js';
import { sessionRunOf } from './timed-run.js';

const line = toolUse('echo hi', { id: 'toolu_bounds' });

/** A session in which the runner answered `line` with `text`. */
function answered(text: string): SessionRun {
  return sessionRunOf({
    spec: { lines: [line], timeoutS: 5, budgetMs: 10_000 },
    outputs: [{ text, atMs: 1, read: 1 }],
    durationMs: 1,
  });
}

const head = `{"type":"tool_result","tool_use_id":"toolu_bounds"`;

function failureOf(run: SessionRun): CheckFailure {
  try {
    resultAt(run, 0, 'echo hi');
  } catch (e) {
    if (e instanceof CheckFailure) return e;
    throw e;
  }
  throw new Error('resultAt accepted the line');
}

test('a result whose content holds a million bad elements is refused at once, the first of them named', () => {
  const text = `${head},"content":[${Array(1_000_000).fill('1').join(',')}],"is_error":false}`;
  const failure = failureOf(answered(text));
  // Judged whole, such a line took a gigabyte of heap (17 MB of it killed wirecheck) and
  // seconds, a great many times the parse of it, which is timed beside it: a machine under load
  // slows both alike, so their ratio holds where a bound in ms does not.
  const parse = bestMs(() => JSON.parse(text), 3);
  const judged = bestMs(() => failureOf(answered(text)), 3);
  expect(judged, `judged in ${judged.toFixed(1)} ms; parsed in ${parse.toFixed(1)} ms`).toBeLessThan(
    10 * parse,
  );
  expect(failure.message).toMatch(/^result line 1 \(echo hi\) is not a tool_result block: content: /);
  expect(failure.message).toContain(
    '(content.0 is the first bad text block of 1000000; the text blocks after it were not judged)',
  );
});

test('good text blocks before the first bad one are judged, and the bad one is named', () => {
  const good = Array(3).fill('{"type":"text","text":"a"}');
  const text = `${head},"content":[${good.join(',')},{"type":"image"},${Array(100_000).fill('1').join(',')}]}`;
  expect(failureOf(answered(text)).message).toContain('(content.3 is the first bad text block of 100004;');
});

test('content as many text blocks still reads as their text (no verdict changed)', () => {
  const blocks = Array.from({ length: 100_000 }, () => '{"type":"text","text":"ab","citations":[]}');
  const result = resultAt(answered(`${head},"content":[${blocks.join(',')}]}`), 0, 'echo hi');
  expect(result).toEqual({
    type: 'tool_result',
    tool_use_id: 'toolu_bounds',
    content: 'ab'.repeat(100_000),
    is_error: false,
  });
  expect(resultAt(answered(`${head},"content":"hi\\n","is_error":false}`), 0, 'echo hi').content).toBe(
    'hi\n',
  );
});

test('a line nested deeper than the limit is not read, and the limit is named', () => {
  const depth = 100_000;
  const text = `${head},"content":"hi\\n","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const failure = failureOf(answered(text));
  expect(failure.message).toMatch(
    /^stdout line 1 \(echo hi\) is not read as JSON: JSON nested deeper than the 512-level limit/,
  );
});

test('a line longer than the limit is not read, and its length is named', () => {
  const text = `${head},"content":"${'a'.repeat(17 * 1024 * 1024)}"}`;
  expect(failureOf(answered(text)).message).toMatch(
    /^stdout line 1 \(echo hi\) is not read as JSON: JSON text longer than the 16777216-character limit \(maxLength\): \d+ characters$/,
  );
});

test('a line that is not JSON is still said to be so', () => {
  expect(failureOf(answered('{"type":')).message).toBe('stdout line 1 (echo hi) is not JSON');
});
