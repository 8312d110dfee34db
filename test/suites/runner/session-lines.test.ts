import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { describeSession } from '../../../src/suites/runner/expect.js';
import {
  EXTRA_LINES_KEPT,
  keptLinesFor,
  runSession,
  stdoutLines,
} from '../../../src/suites/runner/session.js';

// A hostile runner may print nothing but line breaks (`yes ''`): 64 MiB of them are 67 million
// lines, an object each, gigabytes of the harness's heap. The session keeps a bounded number of
// lines and counts the rest, so the checks still see (and say) that the runner printed too many.

const root = mkdtempSync(join(tmpdir(), 'wirecheck-session-lines-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = { baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, workdir: join(root, 'wd') };

const PRINTED = 300_000;

test('a runner printing only line breaks: the session keeps a bounded number of lines and counts the rest', async () => {
  const run = await runSession(
    `yes '' | head -n ${PRINTED}`,
    { lines: [{ text: '{}', id: undefined }], timeoutS: 5, budgetMs: 20_000 },
    env,
  );
  expect(run.outputs.length).toBeGreaterThan(run.spec.lines.length);
  expect(run.outputs.length).toBe(keptLinesFor(1));
  expect(run.outputs.length + run.droppedLines).toBe(PRINTED);
  expect(describeSession(run)).toContain(`${PRINTED} line(s) printed`);
});

/** stdoutLines over `chunks`: the lines kept and the count of the others. */
function keep(
  chunks: readonly string[],
  maxLines: number,
  maxBytes = 1 << 20,
): { kept: string[]; dropped: number } {
  const kept: string[] = [];
  const lines = stdoutLines(maxLines, maxBytes, (text) => kept.push(text));
  for (const chunk of chunks) lines.push(Buffer.from(chunk));
  lines.end();
  return { kept, dropped: lines.droppedLines };
}

test('a runner may print a banner and extra lines beyond its answers: they are kept', () => {
  expect(EXTRA_LINES_KEPT).toBeGreaterThan(0);
  expect(keep(['banner\n{"a":1}\r\n{"b"', ':2}\n'], keptLinesFor(2))).toEqual({
    kept: ['banner', '{"a":1}', '{"b":2}'],
    dropped: 0,
  });
});

test('lines past the line bound are counted, not kept, however they are split into chunks', () => {
  expect(keep(['\n'.repeat(100_000)], 3)).toEqual({ kept: ['', '', ''], dropped: 99_997 });
  expect(keep(['a\nb\nc', 'c\nd', 'd\ne'], 2)).toEqual({ kept: ['a', 'b'], dropped: 3 });
});

test('a line cut by the byte bound is not kept: lines are kept whole or not at all', () => {
  expect(keep(['one\ntw', 'o\nthree\n'], 100, 8)).toEqual({ kept: ['one'], dropped: 2 });
  expect(keep(['one\ntw', 'o and more'], 100, 8)).toEqual({ kept: ['one'], dropped: 1 });
});

test('an unended last line goes to the cut handler when one is given (the runner was killed), else it is a line', () => {
  const run = (cut: boolean) => {
    const kept: string[] = [];
    const cutOff: string[] = [];
    const lines = stdoutLines(10, 1 << 20, (text) => kept.push(text));
    lines.push(Buffer.from('{"a":1}\n{"b":'));
    lines.end(cut ? (text) => cutOff.push(text) : undefined);
    return { kept, cutOff };
  };
  expect(run(true)).toEqual({ kept: ['{"a":1}'], cutOff: ['{"b":'] });
  expect(run(false)).toEqual({ kept: ['{"a":1}', '{"b":'], cutOff: [] });
});
