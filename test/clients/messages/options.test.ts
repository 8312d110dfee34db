import { describe, expect, test } from 'vitest';
import { MissingApiKeyError, resolveOptions } from '../../../src/clients/messages/index.js';

describe('client options (Authentication: the key comes from the environment and is required)', () => {
  test('WIRECHECK_* wins over ANTHROPIC_*, values are trimmed and an empty value counts as unset', () => {
    const o = resolveOptions({
      env: {
        WIRECHECK_API_KEY: '  ',
        ANTHROPIC_API_KEY: ' sk-anthropic \n',
        WIRECHECK_BASE_URL: 'http://127.0.0.1:9/',
        ANTHROPIC_BASE_URL: 'http://other',
      },
    });
    expect(o.apiKey).toBe('sk-anthropic');
    expect(o.baseUrl).toBe('http://127.0.0.1:9');
  });

  test('defaults: the real API URL, both version headers, 2 retries, 600 s to headers, 60 s idle, 600 s of body wait, 64 MiB of body', () => {
    expect(resolveOptions({ env: { WIRECHECK_API_KEY: 'k' } })).toEqual({
      apiKey: 'k',
      baseUrl: 'https://api.anthropic.com',
      version: '2023-06-01',
      versionHeader: 'both',
      maxRetries: 2,
      timeoutMs: 600_000,
      idleTimeoutMs: 60_000,
      bodyTimeoutMs: 600_000,
      maxBodyBytes: 64 * 1024 * 1024,
    });
  });

  test('a client without a key fails with MissingApiKeyError', () => {
    expect(() => resolveOptions({ env: {} })).toThrow(MissingApiKeyError);
    expect(() => resolveOptions({ env: { ANTHROPIC_API_KEY: '' }, apiKey: ' ' })).toThrow(MissingApiKeyError);
  });

  test('misuse is a TypeError naming the option', () => {
    const env = { WIRECHECK_API_KEY: 'k' };
    expect(() => resolveOptions({ env, maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => resolveOptions({ env, idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
    expect(() => resolveOptions({ env, baseUrl: 'ftp://x' })).toThrow(/http\(s\)/);
    expect(() => resolveOptions({ env, baseUrl: 'not a url' })).toThrow(TypeError);
  });
});
