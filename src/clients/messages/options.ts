import { MissingApiKeyError } from './errors.js';

export type VersionHeader = 'anthropic-version' | 'service-version' | 'both';

export interface MessagesClientOptions {
  /** Default: env WIRECHECK_API_KEY, then ANTHROPIC_API_KEY (trimmed; empty counts as unset). Required. */
  apiKey?: string;
  /** Default: env WIRECHECK_BASE_URL, then ANTHROPIC_BASE_URL, then https://api.anthropic.com. No `/v1`. */
  baseUrl?: string;
  /** Value of the version header, default '2023-06-01' ("Versioning"). */
  version?: string;
  /**
   * Which version header to send. The spec calls it `service-version`; the real API reads
   * `anthropic-version`. The default, `both`, sends the two with the same value, so the
   * client meets the spec and works against the real API and mocks that model it.
   */
  versionHeader?: VersionHeader;
  /**
   * Retries of 429, 5xx (529 included) and connection failures before any body byte,
   * default 2. The wait honours retry-after-ms / retry-after, else backs off 0.5 s * 2^n
   * (capped at 8 s, up to 25% less for jitter).
   */
  maxRetries?: number;
  /** Time allowed until the response headers arrive, per attempt, default 600 000 ms. */
  timeoutMs?: number;
  /**
   * Longest silence between body bytes while the client waits for them, default 60 000 ms.
   * The official SDK has no such limit and hangs forever on a stalled stream.
   */
  idleTimeoutMs?: number;
  /**
   * Longest wait, in all, for one response body to end, default 600 000 ms (10 minutes).
   * Bytes arriving do not extend it, so a service that sends a keep-alive comment every 50 s
   * forever (each one restarting the idle watchdog) is stopped: the request fails with the
   * body's timeout error (StreamError, or ConnectionError for a buffered body), cause
   * BodyTimeoutError. Only time spent waiting for the service counts, not a slow consumer's
   * own. A longer reply needs more: 128k tokens at 50 tokens/s stream for 43 minutes.
   */
  bodyTimeoutMs?: number;
  /**
   * Largest response body read, buffered or streamed, default 64 MiB (four times the stream
   * of a 128k-token reply): past it the connection is closed and the request fails with a
   * StreamError naming the limit. Lines and frames of a stream are bounded apart (16 MiB,
   * DEFAULT_SSE_LIMITS), JSON nesting too (512).
   */
  maxBodyBytes?: number;
  /** Environment to read defaults from; process.env when absent. */
  env?: Record<string, string | undefined>;
}

export interface ResolvedOptions {
  apiKey: string;
  /** Without trailing slash. */
  baseUrl: string;
  version: string;
  versionHeader: VersionHeader;
  maxRetries: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
  maxBodyBytes: number;
}

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_VERSION = '2023-06-01';

function fromEnv(env: Record<string, string | undefined>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function positiveMs(name: string, value: number): number {
  // setTimeout clamps larger delays to 1 ms, which would turn a generous limit into none.
  if (!Number.isFinite(value) || value <= 0 || value > 2 ** 31 - 1) {
    throw new TypeError(`${name} must be a number of milliseconds in (0, 2^31-1], got ${value}`);
  }
  return value;
}

/**
 * Options with every default applied. Throws MissingApiKeyError when no key is found
 * (the spec: a client without the key fails before sending) and TypeError on misuse.
 */
export function resolveOptions(options: MessagesClientOptions = {}): ResolvedOptions {
  const env = options.env ?? process.env;
  const apiKey = options.apiKey?.trim() || fromEnv(env, 'WIRECHECK_API_KEY', 'ANTHROPIC_API_KEY');
  if (!apiKey) throw new MissingApiKeyError();
  const baseUrl = (
    options.baseUrl?.trim() ||
    fromEnv(env, 'WIRECHECK_BASE_URL', 'ANTHROPIC_BASE_URL') ||
    DEFAULT_BASE_URL
  ).replace(/\/+$/, '');
  let protocol: string;
  try {
    protocol = new URL(baseUrl).protocol;
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  return {
    apiKey,
    baseUrl,
    version: options.version ?? DEFAULT_VERSION,
    versionHeader: options.versionHeader ?? 'both',
    maxRetries: nonNegativeInteger('maxRetries', options.maxRetries ?? 2),
    timeoutMs: positiveMs('timeoutMs', options.timeoutMs ?? 600_000),
    idleTimeoutMs: positiveMs('idleTimeoutMs', options.idleTimeoutMs ?? 60_000),
    bodyTimeoutMs: positiveMs('bodyTimeoutMs', options.bodyTimeoutMs ?? 600_000),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
  };
}
