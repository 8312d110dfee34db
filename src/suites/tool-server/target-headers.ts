import { UsageError } from '../../harness/errors.js';
import { type GivenHeader, parseHeaderOptions } from '../../protocol/header-option.js';
import { isSecretName, mergeSecrets, REDACTED, scrubSecrets } from '../../recording/redact.js';
import type { TargetHeaders } from './http.js';
import type { ToolServerTarget } from './target.js';

/** A `--header` of an HTTP target: what is sent, and the value as given (`${VAR}` unexpanded) for reports. */
export type TargetHeader = GivenHeader;

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

/** `--header` values as given (commander collects a repeatable option into a list). */
export function parseHeaders(
  value: unknown,
  env: NodeJS.ProcessEnv = process.env,
): TargetHeader[] | undefined {
  if (value === undefined) return undefined;
  const parsed = parseHeaderOptions(Array.isArray(value) ? value : [value], env, OWNED_HEADER_NAMES);
  if (typeof parsed === 'string') throw new UsageError(parsed);
  return parsed;
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
