import { describe, expect, test } from 'vitest';
import {
  backoffMs,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  retryDelay,
  shouldRetryStatus,
} from '../../../src/clients/messages/index.js';

describe('retry policy (official SDK behaviour; the spec only names the rate-limit failure)', () => {
  const now = Date.parse('2026-11-02T10:00:00Z');

  test('retry-after-ms (float milliseconds) comes before retry-after', () => {
    expect(parseRetryAfter('12.5', '30', now)).toBe(12.5);
    expect(parseRetryAfter('bogus', '2', now)).toBe(2000);
  });

  test('retry-after is seconds (fractions allowed) or an HTTP-date', () => {
    expect(parseRetryAfter(undefined, '0', now)).toBe(0);
    expect(parseRetryAfter(undefined, '0.25', now)).toBe(250);
    expect(parseRetryAfter(undefined, 'Mon, 02 Nov 2026 10:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter(undefined, 'Mon, 02 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, 'soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, '-1', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, undefined, now)).toBeUndefined();
  });

  test('backoff is 0.5 s * 2^n capped at 8 s, less up to 25% jitter', () => {
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(1, () => 0)).toBe(1000);
    expect(backoffMs(5, () => 0)).toBe(8000);
    expect(backoffMs(0, () => 1)).toBe(375);
  });

  test('no wait is returned once the retries are spent or when retry-after is too long to sleep through', () => {
    expect(retryDelay(0, 2, 0)).toBe(0);
    expect(retryDelay(2, 2, 0)).toBeUndefined();
    expect(retryDelay(0, 2, MAX_RETRY_AFTER_MS + 1)).toBeUndefined();
    expect(retryDelay(1, 2, undefined, () => 0)).toBe(1000);
  });

  test('429 and 5xx (529 included) are retried; x-should-retry decides when present', () => {
    expect([429, 500, 503, 529].map((s) => shouldRetryStatus(s, undefined))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 404, 413].map((s) => shouldRetryStatus(s, undefined))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(shouldRetryStatus(429, 'false')).toBe(false);
    expect(shouldRetryStatus(400, 'true')).toBe(true);
  });
});
