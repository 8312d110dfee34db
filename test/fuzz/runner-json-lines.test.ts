import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { runSurface } from '../../src/fuzz/run-surface.js';
import {
  arbRunnerCase,
  batchBytes,
  type RunnerCase,
  runnerJsonLinesSurface,
  splitLines,
} from '../../src/fuzz/surfaces/runner-json-lines.js';
import { findSurface } from '../../src/fuzz/surfaces.js';
import { serveJsonLines } from '../../src/runner/index.js';

const RUN = { seed: 424242, runs: 200, caseTimeoutMs: 5_000 };

function passed(result: Awaited<ReturnType<typeof runSurface>>): void {
  if (result.status === 'failed') {
    throw new Error(
      `${result.error}\ncounterexample: ${result.counterexample}\nseed ${result.seed} path ${result.path}`,
    );
  }
}

describe('runner-json-lines fuzz surface', () => {
  test('the runner gives every input line exactly one right result, in order, over 200 cases', async () => {
    const surface = findSurface('runner-json-lines');
    expect(surface).toBeDefined();
    const result = await runSurface(surface!, RUN);
    passed(result);
    expect(result).toMatchObject({ surface: 'runner-json-lines', status: 'passed', cases: 200 });
  }, 60_000);

  test('one line is what lies before each LF, less a CR just before it, and any bytes after the last LF', () => {
    const lines = (text: string) =>
      splitLines(Buffer.from(text, 'latin1')).map((l) => Buffer.from(l).toString('latin1'));
    expect(lines('')).toEqual([]);
    expect(lines('\n')).toEqual(['']);
    expect(lines('a\r\nb')).toEqual(['a', 'b']);
    expect(lines('a\rb\n')).toEqual(['a\rb']);
    expect(lines('a\r\r\n\r')).toEqual(['a\r', '\r']);
  });

  test('the cases reach every kind of line and batch, and no line carries a command it does not declare', () => {
    const cases: RunnerCase[] = fc.sample(arbRunnerCase, { numRuns: 1_000, seed: 7 });
    const results = new Set(cases.flatMap((c) => c.items.map((i) => i.expected.result)));
    expect(results).toEqual(new Set(['output', 'restarted', 'refused', 'no shell', 'invalid']));
    expect(new Set(cases.map((c) => c.shape))).toEqual(new Set(['mixed', 'flood', 'huge']));
    expect(new Set(cases.map((c) => c.feed.how))).toEqual(
      new Set(['whole', 'string', 'bytewise', 'cuts', 'at every line break']),
    );
    expect(new Set(cases.map((c) => c.via))).toEqual(new Set(['library', 'process']));
    expect(new Set(cases.map((c) => c.liveness))).toEqual(new Set(['runs', 'answers']));
    const ends = new Set(cases.flatMap((c) => c.items.map((i) => i.end)));
    expect(ends).toEqual(new Set(['\n', '\r\n', '']));
    for (const c of cases) expect(splitLines(batchBytes(c.items))).toHaveLength(c.items.length);
    const executed = cases.map((c) => c.items.filter((i) => i.expected.result === 'output').length);
    // A command costs 20-40 ms: most batches must run none.
    expect(executed.filter((n) => n === 0).length).toBeGreaterThan(cases.length / 2);
    expect(Math.max(...executed)).toBeLessThanOrEqual(2);
  });

  test('a service that gives an empty line no result fails, with a printed counterexample', async () => {
    const skipsEmpty: typeof serveJsonLines = (options) =>
      serveJsonLines({
        ...options,
        input: (async function* () {
          for await (const chunk of options.input) {
            const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1');
            yield Buffer.from(
              text.replace(/(^|\n)\r?\n/g, '$1'),
              typeof chunk === 'string' ? 'utf8' : 'latin1',
            );
          }
        })(),
      });
    const result = await runSurface(runnerJsonLinesSurface({ serve: skipsEmpty, cli: undefined }), RUN);
    expect(result.status).toBe('failed');
    if (result.status === 'failed')
      expect(result.error).toMatch(/FuzzViolation: .*one result line per input line/);
  }, 60_000);

  test('a service that takes a lone CR for a line ending fails', async () => {
    const splitsAtCr: typeof serveJsonLines = (options) =>
      serveJsonLines({
        ...options,
        input: (async function* () {
          const parts: Uint8Array[] = [];
          for await (const chunk of options.input)
            parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
          yield Buffer.from(
            Buffer.concat(parts)
              .toString('latin1')
              .replace(/\r(?!\n)/g, '\n'),
            'latin1',
          );
        })(),
      });
    const result = await runSurface(runnerJsonLinesSurface({ serve: splitsAtCr, cli: undefined }), RUN);
    expect(result.status).toBe('failed');
    if (result.status === 'failed') expect(result.error).toMatch(/one result line per input line/);
  }, 60_000);

  test('a service that writes a lone surrogate of an id as U+FFFD (not as its \\u escape) fails', async () => {
    // JSON.stringify escapes only lone surrogates; a writer that encodes the line as UTF-8 first turns each into U+FFFD.
    const loneSurrogateEscape = /(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;
    let replaced = 0;
    const lossyWriter: typeof serveJsonLines = (options) =>
      serveJsonLines({
        ...options,
        writeLine: (line) =>
          options.writeLine(
            line.replace(loneSurrogateEscape, (_match, backslashes: string) => {
              replaced += 1;
              return `${backslashes}\uFFFD`;
            }),
          ),
      });
    const result = await runSurface(runnerJsonLinesSurface({ serve: lossyWriter, cli: undefined }), RUN);
    expect(replaced).toBeGreaterThan(0);
    expect(result.status).toBe('failed');
    if (result.status === 'failed') expect(result.error).toMatch(/expected tool_use_id .*got tool_use_id/);
  }, 60_000);
});
