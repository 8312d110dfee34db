import { describe, expect, test } from 'vitest';
import { classifyMessage } from '../../../src/protocol/jsonrpc/index.js';

describe('JSON-RPC 2.0 envelopes', () => {
  test('a request has jsonrpc 2.0, an id and a method', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).kind).toBe('request');
  });
  test('a message with a method and no id is a notification', () => {
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind).toBe(
      'notification',
    );
  });
  test('results and errors are responses', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, result: {} }).kind).toBe('success');
    expect(
      classifyMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }).kind,
    ).toBe('error');
  });
  test('an array is a batch', () => {
    expect(classifyMessage([1, 2]).kind).toBe('batch');
  });
  test('a wrong version is invalid and keeps the id for the error reply', () => {
    expect(classifyMessage({ jsonrpc: '1.0', id: 7, method: 'ping' })).toEqual({
      kind: 'invalid',
      reason: 'expected "jsonrpc": "2.0", got string "1.0"',
      id: 7,
    });
  });
  test('params that are not an object make the request invalid', () => {
    const c = classifyMessage({ jsonrpc: '2.0', id: 2, method: 'ping', params: [1] });
    expect(c).toMatchObject({ kind: 'invalid', id: 2 });
  });
  test('a scalar is invalid with no id', () => {
    expect(classifyMessage(42)).toMatchObject({ kind: 'invalid', id: null });
  });
});
