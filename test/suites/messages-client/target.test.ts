import { expect, test } from 'vitest';
import { UsageError } from '../../../src/harness/errors.js';
import { clientEnv, messagesClientTargetFromOptions } from '../../../src/suites/messages-client/target.js';

const base = {
  PATH: '/usr/bin',
  ANTHROPIC_AUTH_TOKEN: 'token',
  ANTHROPIC_CUSTOM_HEADERS: 'x-evil: 1',
  ANTHROPIC_API_KEY: 'stale',
  WIRECHECK_API_KEY: 'stale',
  WIRECHECK_OTHER: 'kept',
};

test('the client gets the base URL and key under both names and no other ANTHROPIC_ variable', () => {
  const env = clientEnv(base, { baseUrl: 'http://127.0.0.1:1234', apiKey: 'k1' });
  expect(env).toEqual({
    PATH: '/usr/bin',
    WIRECHECK_OTHER: 'kept',
    WIRECHECK_BASE_URL: 'http://127.0.0.1:1234',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:1234',
    WIRECHECK_API_KEY: 'k1',
    ANTHROPIC_API_KEY: 'k1',
  });
});

test('a case without a key leaves both key variables unset, even when wirecheck has them', () => {
  const env = clientEnv(base, { baseUrl: 'http://127.0.0.1:1234', apiKey: undefined });
  expect(env).not.toHaveProperty('WIRECHECK_API_KEY');
  expect(env).not.toHaveProperty('ANTHROPIC_API_KEY');
  expect(env.WIRECHECK_BASE_URL).toBe('http://127.0.0.1:1234');
});

test('--client is required and must not be blank', () => {
  expect(messagesClientTargetFromOptions({ client: 'python client.py' })).toEqual({
    client: 'python client.py',
  });
  expect(() => messagesClientTargetFromOptions({})).toThrow(UsageError);
  expect(() => messagesClientTargetFromOptions({ client: '  ' })).toThrow(UsageError);
});
