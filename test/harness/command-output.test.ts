import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { classifyJsonCommandRun, describeCommandRun } from '../../src/harness/command-output.js';
import type { CommandRun } from '../../src/harness/run-command.js';

const ErrorOut = z.looseObject({ error: z.looseObject({ message: z.string() }) });
const SHAPE = '{"error":{"message":...}}';
const run = (over: Partial<CommandRun>): CommandRun => ({
  exitCode: 0,
  signal: null,
  stdout: '',
  stderr: '',
  timedOut: false,
  durationMs: 5,
  ...over,
});

describe('a target command prints one JSON value: the result on exit 0, the error object otherwise', () => {
  test('exit 0 with a JSON value is a printed result', () => {
    expect(classifyJsonCommandRun(run({ stdout: '{"a":1}\n' }), ErrorOut, SHAPE)).toEqual({
      type: 'printed',
      value: { a: 1 },
    });
  });
  test('a non-zero exit with the error object is an error', () => {
    expect(
      classifyJsonCommandRun(run({ exitCode: 1, stdout: '{"error":{"message":"no"}}' }), ErrorOut, SHAPE),
    ).toEqual({ type: 'error', error: { message: 'no' }, exitCode: 1 });
  });
  test('an error object with exit 0, a non-zero exit without it and non-JSON stdout are broken', () => {
    expect(classifyJsonCommandRun(run({ stdout: '{"error":{"message":"no"}}' }), ErrorOut, SHAPE).type).toBe(
      'broken',
    );
    const noShape = classifyJsonCommandRun(run({ exitCode: 2, stdout: '{}' }), ErrorOut, SHAPE);
    expect(noShape).toMatchObject({ type: 'broken', reason: `exit 2 but stdout is not ${SHAPE}: "{}"` });
    expect(classifyJsonCommandRun(run({ stdout: 'hello' }), ErrorOut, SHAPE).type).toBe('broken');
  });
  test('stdout nested deeper than OUTPUT_JSON_LIMITS is broken, naming the limit, and is never parsed', () => {
    const deep = `${'['.repeat(4_000_000)}${']'.repeat(4_000_000)}`;
    const out = classifyJsonCommandRun(run({ stdout: deep }), ErrorOut, SHAPE);
    expect(out).toMatchObject({
      type: 'broken',
      reason: expect.stringMatching(
        /^stdout is not one JSON value \(JSON nested deeper than the 2048-level limit/,
      ),
    });
    // Within the limit a deep value is a result like any other.
    const within = `${'['.repeat(2000)}${']'.repeat(2000)}`;
    expect(classifyJsonCommandRun(run({ stdout: within }), ErrorOut, SHAPE).type).toBe('printed');
  });
  test('a run past its budget is timed out; one that could not start is broken', () => {
    expect(classifyJsonCommandRun(run({ timedOut: true, exitCode: null }), ErrorOut, SHAPE).type).toBe(
      'timed-out',
    );
    expect(classifyJsonCommandRun(run({ spawnError: new Error('ENOENT') }), ErrorOut, SHAPE)).toMatchObject({
      type: 'broken',
      reason: 'the command could not start: ENOENT',
    });
  });
  test('the description gives the exit status and the end of stderr', () => {
    expect(describeCommandRun(run({ exitCode: null, signal: 'SIGKILL', stderr: 'boom\n' }))).toBe(
      'exit signal SIGKILL; stderr: boom',
    );
  });
});

test('describeCommandRun keeps the first and the last words of a long stderr', () => {
  const stderr = `Error: Cannot find module '/nonexistent.js'\n${'    at frame\n'.repeat(200)}Node.js v24\n`;
  const line = describeCommandRun(run({ exitCode: 1, stderr }));
  expect(line).toContain("Error: Cannot find module '/nonexistent.js'");
  expect(line).toContain('Node.js v24');
  expect(line).toMatch(/\[\.\.\. \d+ characters \.\.\.\]/);
  expect(line.length).toBeLessThan(900);
});
