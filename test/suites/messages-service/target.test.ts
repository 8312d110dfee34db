import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/harness/errors.js';
import {
  DEFAULT_API_KEY_ENV,
  DEFAULT_MODEL,
  messagesServiceTargetFromOptions,
  resolveTarget,
  targetArgs,
} from '../../../src/suites/messages-service/index.js';

describe('messages-service target options', () => {
  test('the key variable and the model default; a trailing slash is dropped', () => {
    expect(resolveTarget({ baseUrl: 'http://127.0.0.1:8080/' })).toEqual({
      baseUrl: 'http://127.0.0.1:8080',
      apiKeyEnv: DEFAULT_API_KEY_ENV,
      model: DEFAULT_MODEL,
    });
    expect(DEFAULT_API_KEY_ENV).toBe('WIRECHECK_API_KEY');
  });

  test('--base-url is required and must be an http(s) URL without /v1', () => {
    expect(() => messagesServiceTargetFromOptions({})).toThrow(UsageError);
    expect(() => messagesServiceTargetFromOptions({ baseUrl: 'localhost:80' })).toThrow(/http or https/);
    expect(() => messagesServiceTargetFromOptions({ baseUrl: 'not a url' })).toThrow(/not an absolute URL/);
    expect(() => messagesServiceTargetFromOptions({ baseUrl: 'https://api.example.com/v1' })).toThrow(
      /ends in \/v1/,
    );
  });

  test('the options become the target, and the target the reproduce arguments', () => {
    const target = messagesServiceTargetFromOptions({
      baseUrl: 'https://api.example.com',
      apiKeyEnv: 'K',
      model: 'x',
    });
    expect(target).toEqual({ baseUrl: 'https://api.example.com', apiKeyEnv: 'K', model: 'x' });
    expect(targetArgs(target)).toEqual([
      '--base-url',
      'https://api.example.com',
      '--api-key-env',
      'K',
      '--model',
      'x',
    ]);
  });
});
