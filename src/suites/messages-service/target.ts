import { UsageError } from '../../harness/errors.js';
import type { GivenHeader } from '../../protocol/header-option.js';
import { DEFAULT_MODEL } from '../../protocol/messages/default-model.js';
import { redactUrl } from '../../recording/tools/redact-target.js';
import { parseHeaders, shownHeader } from '../given-headers.js';
import type { TargetOptionSpec } from '../registry.js';
import { requiredStringOption, stringOption } from '../target-options.js';

/** A messages service reached over HTTP (the target contract in the README, messages-service): our mock, a gateway, the real API. */
export interface MessagesServiceTarget {
  /** Where `POST {baseUrl}/v1/messages` is served; no trailing `/v1`. */
  readonly baseUrl: string;
  /** Environment variable holding the key sent as `x-api-key` (default WIRECHECK_API_KEY). */
  readonly apiKeyEnv?: string;
  /** Model named in every request (default DEFAULT_MODEL). */
  readonly model?: string;
  /** `--header`s sent with every request (a gateway's routing or credentials). */
  readonly headers?: readonly GivenHeader[];
}

/**
 * Headers the suite sets itself on its requests, or judges the service by: a `--header` naming
 * one would change what is judged. The key comes from `--api-key-env`.
 */
export const SUITE_HEADER_NAMES: readonly string[] = [
  'content-type',
  'content-length',
  'accept',
  'host',
  'x-api-key',
  'service-version',
  'anthropic-version',
];

export const DEFAULT_API_KEY_ENV = 'WIRECHECK_API_KEY';
export { DEFAULT_MODEL };

export interface ResolvedTarget {
  /** Normalized: no trailing slash. */
  readonly baseUrl: string;
  readonly apiKeyEnv: string;
  readonly model: string;
}

/** Apply the defaults (the base URL itself is judged by `baseUrlProblem`). */
export function resolveTarget(target: MessagesServiceTarget): ResolvedTarget {
  return {
    baseUrl: target.baseUrl.replace(/\/+$/, ''),
    apiKeyEnv: target.apiKeyEnv ?? DEFAULT_API_KEY_ENV,
    model: target.model ?? DEFAULT_MODEL,
  };
}

/** Why a base URL cannot be used, or undefined when it can. */
export function baseUrlProblem(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `the base URL ${JSON.stringify(baseUrl)} is not an absolute URL (e.g. http://127.0.0.1:8080)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `the base URL ${JSON.stringify(baseUrl)} must use http or https`;
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses such a URL outright; and a password is nothing a message may show.
    return `the base URL ${JSON.stringify(redactUrl(baseUrl))} carries a user name or password, which no request sends: give the API key in the variable --api-key-env names`;
  }
  if (/\/v1\/?$/.test(url.pathname)) {
    return `the base URL ${JSON.stringify(baseUrl)} ends in /v1: give the URL without it, the suite appends /v1/messages`;
  }
  return undefined;
}

export function messagesEndpoint(baseUrl: string): string {
  return `${baseUrl}/v1/messages`;
}

export const MESSAGES_SERVICE_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  { flags: '--base-url <url>', description: 'base URL of the messages service under test (no /v1)' },
  {
    flags: '--api-key-env <var>',
    description: `environment variable holding the API key (default ${DEFAULT_API_KEY_ENV})`,
  },
  { flags: '--model <model>', description: `model named in every request (default ${DEFAULT_MODEL})` },
  {
    flags: '--header <header>',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the user types, expanded by parseHeaders
      "'Name: value' sent with every request to the service, such as a gateway's routing or credential header (e.g. 'Authorization: Bearer ${GATEWAY_KEY}'); a credential-named one is left out of the requests that test a missing or wrong key. Not x-api-key, which --api-key-env gives; repeatable",
    repeatable: true,
  },
];

/** The target from commander's option values (`--base-url` -> `baseUrl`). */
export function messagesServiceTargetFromOptions(opts: Record<string, unknown>): MessagesServiceTarget {
  const baseUrl = requiredStringOption(opts, 'baseUrl', '--base-url <url>');
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) throw new UsageError(problem);
  const apiKeyEnv = stringOption(opts, 'apiKeyEnv');
  const model = stringOption(opts, 'model');
  const headers = parseHeaders(opts.header, SUITE_HEADER_NAMES);
  return {
    baseUrl,
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    ...(model ? { model } : {}),
    ...(headers === undefined || headers.length === 0 ? {} : { headers }),
  };
}

/** The service as reports show it: the credentials written into its URL redacted (target-secrets.ts). */
export function describeTarget(target: MessagesServiceTarget): string {
  const t = resolveTarget(target);
  return `${redactUrl(t.baseUrl)} (model ${t.model})`;
}

export function targetArgs(target: MessagesServiceTarget): string[] {
  const t = resolveTarget(target);
  const headers = (target.headers ?? []).flatMap((h) => ['--header', shownHeader(h)]);
  return ['--base-url', redactUrl(t.baseUrl), '--api-key-env', t.apiKeyEnv, '--model', t.model, ...headers];
}
