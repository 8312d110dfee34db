import { UsageError } from '../../harness/errors.js';
import { isSecretName, mergeSecrets, REDACTED, scrubSecrets } from '../../recording/redact.js';
import type { TargetHeaders } from './http.js';
import type { ToolServerTarget } from './target.js';

/** A `--header` of an HTTP target: what is sent, and the value as given (`${VAR}` unexpanded) for reports. */
export interface TargetHeader {
  readonly name: string;
  /** Sent on every request; never written to a report. */
  readonly value: string;
  readonly given: string;
}

/**
 * Headers the suite sets itself on its requests, or judges the server by: a `--header`
 * naming one would change what a check sends, and so what it judges.
 */
export const OWNED_HEADER_NAMES: readonly string[] = [
  'content-type',
  'content-length',
  'accept',
  'host',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'origin',
];

/** RFC 9110 token: the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `--header` values as given (commander collects a repeatable option into a list). */
export function parseHeaders(
  value: unknown,
  env: NodeJS.ProcessEnv = process.env,
): TargetHeader[] | undefined {
  if (value === undefined) return undefined;
  const headers = (Array.isArray(value) ? value : [value]).map((one) => parseHeader(one, env));
  const names = headers.map((h) => h.name.toLowerCase());
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new UsageError(`--header ${twice} is given twice: give each header once`);
  return headers;
}

function parseHeader(text: unknown, env: NodeJS.ProcessEnv): TargetHeader {
  const colon = typeof text === 'string' ? text.indexOf(':') : -1;
  if (typeof text !== 'string' || colon < 0) {
    throw new UsageError(`--header takes 'Name: value', got ${JSON.stringify(text)}`);
  }
  const name = text.slice(0, colon).trim();
  const given = text.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) {
    throw new UsageError(`--header needs an HTTP header name before the colon, got ${JSON.stringify(text)}`);
  }
  if (given === '') throw new UsageError(`--header ${name} has an empty value, got ${JSON.stringify(text)}`);
  if (OWNED_HEADER_NAMES.includes(name.toLowerCase())) {
    throw new UsageError(
      `--header ${name}: the suite sets ${name} itself (it cannot be given: ${OWNED_HEADER_NAMES.join(', ')})`,
    );
  }
  const value = expandVariables(given, env, name);
  // Node refuses a header value with control characters only when the request is made: say so now.
  if (/[\0-\x08\x0a-\x1f\x7f]/.test(value)) {
    throw new UsageError(`--header ${name}: the value holds a control character (a line break?)`);
  }
  return { name, value, given };
}

/** `${VAR}` in a `--header` value, from wirecheck's own environment: an unset one is a usage error. */
function expandVariables(given: string, env: NodeJS.ProcessEnv, name: string): string {
  return given.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
    const value = env[variable];
    if (value === undefined) {
      throw new UsageError(`--header ${name} names the environment variable ${variable}, which is not set`);
    }
    return value;
  });
}

/**
 * A `--header` as reports show it: as given, or `Name: [redacted]` for a credential-named
 * header given literally (one given as `${VAR}` shows only the variable's name).
 */
export function shownHeader(header: TargetHeader): string {
  const literalSecret = isSecretName(header.name) && !header.given.includes('${');
  return `${header.name}: ${literalSecret ? REDACTED : header.given}`;
}

/**
 * The values of the target's `--header`s that reports do not show (credential-named, or read
 * from the environment), for the suite to scrub from what it reports. A value the reproduce
 * line shows is no secret, and scrubbing it (`X-Client: wirecheck`) would garble messages.
 */
export function headerSecrets(target: ToolServerTarget): string[] {
  if (target.kind === 'stdio') return [];
  return (target.headers ?? [])
    .filter((h) => isSecretName(h.name) || h.given.includes('${'))
    .map((h) => h.value);
}

/** The `--header`s to send with each request to the server, or undefined when none were given. */
export function headersToSend(target: ToolServerTarget): TargetHeaders | undefined {
  if (target.kind === 'stdio' || target.headers === undefined || target.headers.length === 0)
    return undefined;
  return {
    origin: new URL(target.url).origin,
    headers: Object.fromEntries(target.headers.map((h) => [h.name, h.value])),
  };
}

/** What hides the target's secret header values in a report's text, or undefined when there are none. */
export function headerScrubber(secrets: readonly string[]): ((text: string) => string) | undefined {
  const kept = mergeSecrets(secrets);
  return kept.length === 0 ? undefined : (text) => scrubSecrets(text, kept);
}
