import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { quickSuite, runAgainst, serverScript, stdioTarget } from './helpers.js';

// Values a tool server sends that the suite's check code read without validating: each threw
// a TypeError or a RangeError, which failed a correct server or stopped the run as a bug of
// wirecheck. Each must be a verdict instead.

function run(mode: string, only: readonly string[]): Promise<SuiteResult> {
  return runAgainst(
    stdioTarget(`${serverScript('hostile-values')} --mode ${mode}`, 'all'),
    { only: only.map((id) => `tool-server.${id}`) },
    quickSuite,
  );
}

function byId(result: SuiteResult): Map<string, { status: string; message: string }> {
  return new Map(
    result.checks.map((c) => [
      c.id.replace('tool-server.', ''),
      { status: c.status, message: c.message ?? '' },
    ]),
  );
}

/** No check's message is the engine's own error at a misused value. */
function noEngineError(result: SuiteResult): void {
  for (const c of result.checks)
    expect(c.message ?? '').not.toMatch(/TypeError|RangeError|Cannot |Maximum call stack/);
}

const GENERATED = ['tools.generated-arguments', 'tools.not-called'];

describe('inputSchemas a correct server may list', () => {
  test('boolean subschemas: `true` takes any value; a tool with `false` or null nested is left out and named', async () => {
    const result = await run('subschemas', GENERATED);
    const checks = byId(result);
    expect(checks.get('tools.generated-arguments')?.status).toBe('pass');
    const note = checks.get('tools.not-called');
    expect(note?.status).toBe('skip');
    expect(note?.message).toMatch(/never: the schema of "a" is false: no value fits/);
    expect(note?.message).toMatch(/nullish: the schema of "a" is null, not a JSON Schema/);
    // Called, so named among the called tools only, never among those left out.
    expect(note?.message).toMatch(/^called: any_items \(/);
    expect(note?.message.replace(/^called: [^;]*/, '')).not.toMatch(/any_items/);
    noEngineError(result);
  }, 120_000);

  test('an enum of 150,000 values is generated from (the spread overflowed the stack)', async () => {
    const result = await run('big-enum', GENERATED);
    expect(byId(result).get('tools.generated-arguments')?.status).toBe('pass');
    noEngineError(result);
  }, 120_000);

  test('150,000 tools are called from (the spread of their arbitraries overflowed the stack)', async () => {
    const result = await run('many-tools', ['tools.generated-arguments']);
    expect(byId(result).get('tools.generated-arguments')?.status).toBe('pass');
    noEngineError(result);
  }, 120_000);
});

describe('tools the Tool schema refuses', () => {
  const CHECKS = [
    'tools.list-shape',
    'tools.property-schema',
    'tools.defaults-valid',
    'tools.call-result-shape',
    'tools.arguments-absent',
    'tools.diagnostic',
    ...GENERATED,
  ];

  test('beside a well-formed tool: only the list check fails, the others judge the well-formed one', async () => {
    const result = await run('malformed-tools', CHECKS);
    const checks = byId(result);
    expect(checks.get('tools.list-shape')?.status).toBe('fail');
    expect(checks.get('tools.property-schema')?.status).toBe('pass');
    expect(checks.get('tools.call-result-shape')?.status).toBe('pass');
    expect(checks.get('tools.arguments-absent')?.status).toBe('pass');
    expect(checks.get('tools.generated-arguments')?.status).toBe('pass');
    expect(checks.get('tools.diagnostic')?.status).toBe('skip');
    const note = checks.get('tools.not-called');
    expect(note?.status).toBe('skip');
    expect(note?.message).toMatch(
      /3 listed tools left out for a malformed entry \(tools\.list-shape judges it\): "info", "strprop", "status"/,
    );
    noEngineError(result);
  }, 120_000);

  test('alone: the checks that need a tool are not exercised, and say why, never "the server lists no tools"', async () => {
    const result = await run('only-malformed', CHECKS);
    const checks = byId(result);
    expect(checks.get('tools.list-shape')?.status).toBe('fail');
    for (const id of CHECKS.slice(1)) {
      expect(checks.get(id)?.status, id).toBe('skip');
      if (id !== 'tools.diagnostic') expect(checks.get(id)?.message, id).toMatch(/3 listed tools left out/);
    }
    noEngineError(result);
  }, 120_000);
});

test('`"error": null` beside every result: each reply is judged as the success it is', async () => {
  const result = await run('error-null', [
    'ping.answered',
    'jsonrpc.unknown-method',
    'jsonrpc.unknown-method-code',
    'tools.arguments-absent',
    'tools.unknown-tool-rejected',
    'tools.unknown-tool-error',
    'tools.invalid-params',
  ]);
  const checks = byId(result);
  expect(checks.get('ping.answered')?.status).toBe('pass');
  // The server answers an unknown method with a result: that check's failure, said as such.
  expect(checks.get('jsonrpc.unknown-method')?.status).toBe('fail');
  expect(checks.get('jsonrpc.unknown-method')?.message).toMatch(/not with an error/);
  expect(checks.get('jsonrpc.unknown-method-code')?.status).toBe('skip');
  expect(checks.get('tools.arguments-absent')?.status).toBe('pass');
  expect(checks.get('tools.unknown-tool-rejected')?.status).toBe('pass');
  expect(checks.get('tools.unknown-tool-error')?.status).toBe('warn');
  expect(checks.get('tools.invalid-params')?.status).toBe('warn');
  expect(checks.get('tools.invalid-params')?.message).toMatch(/"isError":true/);
  noEngineError(result);
}, 120_000);

test('a parse error whose code is an object: the malformed checks judge it, nothing escapes to the event loop', async () => {
  const result = await run('object-code', [
    'malformed.survives',
    'malformed.parse-error',
    'malformed.invalid-request',
  ]);
  const checks = byId(result);
  expect(checks.get('malformed.survives')?.status).toBe('pass');
  expect(checks.get('malformed.parse-error')?.status).toBe('warn');
  // The answer is quoted: its watch read it (the pick threw in the stream's data handler, uncaught).
  expect(checks.get('malformed.parse-error')?.message).toMatch(
    /not answered with a parse error \(.*"code":\{"toString":1\}/,
  );
  expect(checks.get('malformed.invalid-request')?.status).toBe('pass');
  noEngineError(result);
}, 60_000);
