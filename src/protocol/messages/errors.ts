import { z } from 'zod';

/** Error types of the real API (the spec leaves error bodies "not shown"). */
export const API_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
] as const;
export type ApiErrorType = (typeof API_ERROR_TYPES)[number];

/** The real API's HTTP status for each error type. */
export const STATUS_OF_ERROR_TYPE: Record<ApiErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function errorTypeForStatus(status: number): ApiErrorType {
  for (const [type, s] of Object.entries(STATUS_OF_ERROR_TYPE)) if (s === status) return type as ApiErrorType;
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

/** `{"type":"error","error":{"type","message"}}`, also the data of an `error` stream event. */
export const ErrorBody = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({
    type: z.string(),
    message: z.string(),
  }),
  request_id: z.string().nullable().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export function errorBody(type: ApiErrorType | string, message: string, requestId?: string): ErrorBody {
  return requestId === undefined
    ? { type: 'error', error: { type, message } }
    : { type: 'error', error: { type, message }, request_id: requestId };
}
