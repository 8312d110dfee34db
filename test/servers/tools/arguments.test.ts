import { expect, test } from 'vitest';
import { compileArgumentChecker } from '../../../src/servers/tools/index.js';

test('required and typed arguments named like members of Object are read from the arguments themselves', () => {
  const check = compileArgumentChecker({
    type: 'object',
    properties: { constructor: { type: 'string' }, valueOf: { type: 'number', default: 3 } },
    required: ['constructor', 'toString'],
  });
  // Absent ones were taken for present (Object's own members), so nothing was missing.
  expect(check(JSON.parse('{}'))).toEqual({ ok: false, reason: 'missing required argument "constructor"' });
  expect(check(JSON.parse('{"constructor": "a"}'))).toEqual({
    ok: false,
    reason: 'missing required argument "toString"',
  });
  expect(check(JSON.parse('{"constructor": 1, "toString": 1}'))).toMatchObject({
    ok: false,
    reason: 'argument "constructor": expected string, got number 1',
  });
  // The default of an absent "valueOf" is filled in, as any other default.
  expect(check(JSON.parse('{"constructor": "a", "toString": 1}'))).toEqual({
    ok: true,
    args: { constructor: 'a', toString: 1, valueOf: 3 },
  });
});
