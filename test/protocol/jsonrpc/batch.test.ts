import { describe, expect, test } from 'vitest';
import { bodyMessages } from '../../../src/protocol/jsonrpc/index.js';

describe('bodyMessages: the messages of a body, each answered on its own', () => {
  test('one message is itself, classified', () => {
    expect(bodyMessages({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual([
      { kind: 'request', message: { jsonrpc: '2.0', id: 1, method: 'ping' } },
    ]);
    expect(bodyMessages(5)).toEqual([expect.objectContaining({ kind: 'invalid', id: null })]);
  });

  test("a batch's items in order; an empty batch and a batch inside a batch are one Invalid Request each, id null", () => {
    expect(bodyMessages([]).map((c) => [c.kind, 'reason' in c && c.reason])).toEqual([
      ['invalid', 'an empty batch'],
    ]);
    const items = bodyMessages([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', id: 2, method: 'ping' }],
      { jsonrpc: '2.0', id: 3, result: {} },
      { jsonrpc: '2.0', id: 4, method: 7 },
    ]);
    expect(items.map((c) => c.kind)).toEqual(['notification', 'invalid', 'success', 'invalid']);
    expect(items[1]).toEqual({ kind: 'invalid', reason: 'a batch inside a batch', id: null });
    // An invalid message whose id could be read keeps it, for the error to echo.
    expect(items[3]).toMatchObject({ kind: 'invalid', id: 4 });
  });
});
