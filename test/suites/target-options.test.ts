import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/harness/errors.js';
import { requiredStringOption, stringOption } from '../../src/suites/target-options.js';

describe('target option helpers', () => {
  test('a missing or empty required option is a usage error naming the flag', () => {
    expect(requiredStringOption({ baseUrl: 'http://x' }, 'baseUrl', '--base-url <url>')).toBe('http://x');
    for (const opts of [{}, { baseUrl: '' }, { baseUrl: true }]) {
      expect(() => requiredStringOption(opts, 'baseUrl', '--base-url <url>')).toThrow(UsageError);
    }
    expect(() => requiredStringOption({}, 'baseUrl', '--base-url <url>')).toThrow(
      'this suite needs --base-url <url>',
    );
  });

  test('an optional option falls back to its default', () => {
    expect(stringOption({}, 'apiKeyEnv', 'WIRECHECK_API_KEY')).toBe('WIRECHECK_API_KEY');
    expect(stringOption({ apiKeyEnv: 'K' }, 'apiKeyEnv', 'WIRECHECK_API_KEY')).toBe('K');
    expect(stringOption({}, 'model')).toBeUndefined();
  });
});
