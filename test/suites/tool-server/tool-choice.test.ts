import { describe, expect, test } from 'vitest';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import {
  echoTool,
  findDiagnosticTool,
  minimalArguments,
  noArgumentTool,
  probeTool,
} from '../../../src/suites/tool-server/tool-choice.js';

const t = (
  name: string,
  properties: Record<string, unknown> = {},
  required: string[] = [],
  description = '',
): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: properties as Tool['inputSchema']['properties'], required },
});

describe('choosing tools (Reference tool behaviours: a diagnostic tool with an optional boolean verbose or detailed argument)', () => {
  test('the diagnostic tool is found by its name or by a status description with a verbose/detailed flag', () => {
    expect(findDiagnosticTool([t('echo'), t('health_check')])?.name).toBe('health_check');
    const status = t('server_info', { detailed: { type: 'boolean' } }, [], 'Process status');
    expect(findDiagnosticTool([t('echo'), status])?.name).toBe('server_info');
    expect(
      findDiagnosticTool([t('get-env'), t('echo', { message: { type: 'string' } }, ['message'])]),
    ).toBeUndefined();
  });

  test('slow or networked tools are never the probe; required arguments get minimal valid values', () => {
    const tools = [
      t('trigger-long-running-operation'),
      t('gzip-file-as-resource'),
      t('add', { a: { type: 'number' }, mode: { type: 'string', enum: ['x', 'y'] } }, ['a', 'mode']),
    ];
    expect(probeTool(tools)?.name).toBe('add');
    expect(minimalArguments(tools[2]!)).toEqual({ a: 1, mode: 'x' });
    expect(noArgumentTool([...tools, t('get-tiny-image')])?.name).toBe('get-tiny-image');
  });

  test("minimal arguments read the schema's own properties only", () => {
    const tool = t('x', { constructor: { type: 'integer', minimum: 3 } }, ['constructor', 'toString']);
    expect(minimalArguments(tool)).toEqual({ constructor: 3, toString: 'wirecheck' });
  });

  test('an echo tool is one with a single required string property', () => {
    expect(echoTool([t('echo', { message: { type: 'string' } }, ['message'])])).toMatchObject({
      property: 'message',
    });
    expect(echoTool([t('echo', { a: { type: 'number' } }, ['a'])])).toBeUndefined();
  });
});
