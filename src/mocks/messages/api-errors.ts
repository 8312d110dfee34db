import { randomBytes } from 'node:crypto';
import { type ErrorBody, errorBody, errorTypeForStatus } from '../../protocol/messages/index.js';

/** The real API's wording where it is well known; a plain statement otherwise. */
const DEFAULT_MESSAGES: Record<string, string> = {
  invalid_request_error: 'Invalid request',
  authentication_error: 'invalid x-api-key',
  billing_error: 'Your credit balance is too low to access the API.',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of requests has exceeded your rate limit.',
  api_error: 'Internal server error',
  timeout_error: 'Request timed out',
  overloaded_error: 'Overloaded',
};

export function defaultErrorMessage(type: string): string {
  // Own keys only: a scenario's errorType "constructor" read Object itself (and the body lost its message).
  return Object.hasOwn(DEFAULT_MESSAGES, type) ? DEFAULT_MESSAGES[type]! : type;
}

/** The real API's error body for an HTTP status: `{"type":"error","error":{type,message},"request_id"}`. */
export function errorBodyFor(
  status: number,
  requestId: string,
  errorType?: string,
  message?: string,
): ErrorBody {
  const type = errorType ?? errorTypeForStatus(status);
  return errorBody(type, message ?? defaultErrorMessage(type), requestId);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += BASE62[b % 62];
  return out;
}

// A random prefix per process and a counter: unique ids without a random draw per
// request (which showed in profiles of short streams).
const PREFIX = base62(randomBytes(12));
let counter = 0;

/** A request id shaped like the real API's (`req_011C` + 20 base62 characters). */
export function newRequestId(): string {
  counter = (counter + 1) % 62 ** 8;
  let n = counter;
  let tail = '';
  for (let i = 0; i < 8; i++) {
    tail = BASE62[n % 62] + tail;
    n = Math.floor(n / 62);
  }
  return `req_011C${PREFIX}${tail}`;
}
