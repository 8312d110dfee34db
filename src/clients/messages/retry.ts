/**
 * Retry policy, after the official SDK (client.ts shouldRetry / retryRequest): retry 429
 * and 5xx (529 overloaded included) and connection failures; `x-should-retry` overrides
 * the status rule; the wait is retry-after-ms, else retry-after (seconds or HTTP-date),
 * else exponential backoff.
 */

/** A longer retry-after is not slept through: the error goes to the caller with retryAfterMs. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** The wait a response asks for, in ms; undefined when it asks for none or the value is unusable. */
export function parseRetryAfter(
  retryAfterMs: string | undefined,
  retryAfter: string | undefined,
  nowMs: number,
): number | undefined {
  if (retryAfterMs !== undefined && retryAfterMs.trim() !== '') {
    const ms = Number(retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  if (retryAfter === undefined || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Backoff before retry number `retry` (0-based): 0.5 s * 2^retry, capped at 8 s, minus up to 25% jitter. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(BASE_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS);
  return base * (1 - 0.25 * random());
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** `x-should-retry: true|false` decides alone when present (as in the official SDK). */
export function shouldRetryStatus(status: number, xShouldRetry: string | undefined): boolean {
  if (xShouldRetry === 'true') return true;
  if (xShouldRetry === 'false') return false;
  return isRetryableStatus(status);
}

/**
 * How long to wait before the next attempt, or undefined to give up: no retries left, or a
 * retry-after beyond MAX_RETRY_AFTER_MS.
 */
export function retryDelay(
  retriesDone: number,
  maxRetries: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retriesDone >= maxRetries) return undefined;
  if (retryAfterMs === undefined) return backoffMs(retriesDone, random);
  return retryAfterMs <= MAX_RETRY_AFTER_MS ? retryAfterMs : undefined;
}
