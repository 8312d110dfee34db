import { describe, expect, test } from 'vitest';
import { targetOptionUnion, targetOptionValues } from '../../../src/cli/options.js';
import { UsageError } from '../../../src/harness/errors.js';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import { REFERENCE_SERVER_NAME as SERVER_NAME } from '../../../src/servers/tools/core.js';
import { REFERENCE_TOOLS } from '../../../src/servers/tools/reference-tools.js';
import { SUITES } from '../../../src/suites/registry.js';
import { unlistedNamesProblem } from '../../../src/suites/tool-server/call-policy.js';
import {
  callPolicy,
  MOCK_SERVER_NAME,
  parseCallTools,
  REFERENCE_SERVER_NAME,
  REFERENCE_TOOL_PROPERTIES,
  referenceToolServerCommand,
  targetArgs,
  toolServerSuiteEntry,
  toolServerTargetFromOptions,
} from '../../../src/suites/tool-server/index.js';
import { cli } from '../../cli/fake-suites.js';

const tool = (name: string, props: string[] = [], annotations?: Record<string, unknown>): Tool => ({
  name,
  inputSchema: { type: 'object', properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])) },
  ...(annotations === undefined ? {} : { annotations }),
});

describe('which tools the suite may call (--call-tools)', () => {
  test("the reference server's own tools, recognised by server name, tool name and properties", () => {
    const listed = [tool('echo', ['text']), tool('write_file', ['path']), tool('add', ['a', 'b', 'c'])];
    const policy = callPolicy(listed, REFERENCE_SERVER_NAME, undefined);
    expect(policy.allowed.map((t) => t.name)).toEqual(['echo']);
    expect(policy.refusedNote).toContain('write_file, add');
    expect(policy.refusedNote).toContain('--call-tools all');
    // The same names under another server name are not the reference's.
    expect(callPolicy(listed, 'my-server', undefined).allowed).toEqual([]);
  });

  test("names of Object's own members are not reference tools (toString was allowed, constructor threw)", () => {
    const listed = [
      tool('toString'),
      tool('constructor', ['x']),
      tool('__proto__'),
      tool('hasOwnProperty', ['a']),
    ];
    const policy = callPolicy(listed, REFERENCE_SERVER_NAME, undefined);
    expect(policy.allowed).toEqual([]);
    expect(policy.refused.map((t) => t.name)).toEqual(listed.map((t) => t.name));
  });

  test('what the suite takes for the reference is what src/servers/tools defines', () => {
    expect(REFERENCE_SERVER_NAME).toBe(SERVER_NAME);
    expect(
      Object.fromEntries(REFERENCE_TOOLS.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})])),
    ).toEqual(REFERENCE_TOOL_PROPERTIES);
  });

  test('every tool of a mock server, and tools annotated readOnlyHint: true of any server', () => {
    expect(callPolicy([tool('anything')], MOCK_SERVER_NAME, undefined).allowed).toHaveLength(1);
    const listed = [
      tool('read_file', ['path'], { readOnlyHint: true }),
      tool('write_file', ['path'], { readOnlyHint: false, destructiveHint: true }),
      tool('move_file', ['a', 'b']),
    ];
    const policy = callPolicy(listed, 'secure-filesystem-server', undefined);
    expect(policy.allowed.map((t) => t.name)).toEqual(['read_file']);
    expect(policy.refused.map((t) => t.name)).toEqual(['write_file', 'move_file']);
  });

  test('all, none, or the names given', () => {
    const listed = [tool('a'), tool('b', [], { readOnlyHint: true })];
    expect(callPolicy(listed, MOCK_SERVER_NAME, 'none').allowed).toEqual([]);
    expect(callPolicy(listed, 'x', 'all').allowed).toHaveLength(2);
    expect(callPolicy(listed, 'x', ['a']).allowed.map((t) => t.name)).toEqual(['a']);
    expect(callPolicy(listed, 'x', ['a']).refusedNote).toContain('not named in --call-tools');
  });

  test('parsing --call-tools, and the reproduce line carries it', () => {
    expect(parseCallTools('all')).toBe('all');
    expect(parseCallTools(' none ')).toBe('none');
    expect(parseCallTools('read_file, list_directory')).toEqual(['read_file', 'list_directory']);
    expect(() => parseCallTools('a,,b')).toThrow(UsageError);
    expect(() => parseCallTools('')).toThrow(UsageError);
    // A keyword in a list is no tool name: refused, not read as the names around it.
    expect(() => parseCallTools('none,echo')).toThrow('none stands alone');
    expect(() => parseCallTools('echo, all')).toThrow('all stands alone');
    const target = toolServerTargetFromOptions({ stdio: 'node s.js', callTools: 'read_file' });
    expect(targetArgs(target)).toEqual(['--stdio', 'node s.js', '--call-tools', 'read_file']);
  });

  test("the CLI takes --call-tools from the suite's target options, with no CLI code of its own", () => {
    const union = targetOptionUnion(SUITES, ['seed', 'runs', 'only', 'full', 'strict', 'reportDir']);
    expect(union.find((o) => o.flags === '--call-tools <which>')?.suites).toEqual(['tool-server']);
    const values = targetOptionValues(toolServerSuiteEntry, union, { stdio: 'x', callTools: 'none' });
    expect(toolServerSuiteEntry.targetFromOptions(values)).toEqual({
      kind: 'stdio',
      command: 'x',
      callTools: 'none',
    });
  });
});

describe('--call-tools naming a tool the server does not list (a typo gave a green run)', () => {
  const page = (...names: unknown[]) => ({
    tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })),
  });

  test('the names missing and what the server lists are said; listed names, all and none are fine', () => {
    const pages = { results: [page('echo', 'add')] };
    expect(unlistedNamesProblem(pages, ['ehco'])).toMatch(
      /^--call-tools names "ehco", which the server does not list \(it lists: echo, add\): /,
    );
    expect(unlistedNamesProblem(pages, ['echo', 'ad', 'ehco'])).toMatch(
      /^--call-tools names "ad" and "ehco", which the server does not list/,
    );
    expect(unlistedNamesProblem({ results: [{ tools: [] }] }, ['echo'])).toContain('(it lists no tools)');
    expect(unlistedNamesProblem(pages, ['echo'])).toBeUndefined();
    expect(unlistedNamesProblem(pages, 'all')).toBeUndefined();
    expect(unlistedNamesProblem(pages, 'none')).toBeUndefined();
    expect(unlistedNamesProblem(pages, undefined)).toBeUndefined();
  });

  test('every page counts, and an entry the Tool schema refuses is still listed by its name', () => {
    const pages = {
      results: [{ ...page('a'), nextCursor: '2' }, { tools: [{ name: 'b', inputSchema: null }] }],
    };
    expect(unlistedNamesProblem(pages, ['a', 'b'])).toBeUndefined();
  });

  test('a listing that stopped early may hold the name on a page not read: nothing is judged', () => {
    const results = [{ ...page('a'), nextCursor: '2' }];
    expect(
      unlistedNamesProblem({ results, problem: 'tools/list with cursor "2" ...' }, ['b']),
    ).toBeUndefined();
    expect(unlistedNamesProblem({ results, cut: 'the 1 pages read hold ...' }, ['b'])).toBeUndefined();
  });

  test('a long list is cut to its first names, with how many there are', () => {
    const names = Array.from({ length: 30 }, (_, i) => `tool_${i}`);
    const message = unlistedNamesProblem({ results: [page(...names)] }, ['nope'])!;
    expect(message).toContain('it lists: tool_0, tool_1,');
    expect(message).toContain('tool_11, ... (30 tools)');
    expect(message).not.toContain('tool_12');
  });

  test('wirecheck test tool-server --call-tools ehco against the reference server: exit 2, naming ehco and the listed tools', async () => {
    const run = await cli([
      'test',
      'tool-server',
      '--stdio',
      referenceToolServerCommand('stdio'),
      '--call-tools',
      'ehco',
      '--only',
      'tool-server.initialize.',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'WC_USAGE: suite tool-server: --call-tools names "ehco", which the server does not list (it lists: ',
    );
    expect(run.stderr).toMatch(/it lists: [^)]*\becho\b/);
    expect(run.stdout).not.toMatch(/\d+ passed/);
  }, 60_000);
});
