import { UsageError } from '../../harness/errors.js';
import { type GivenHeader, OWNED_HEADER_NAMES, parseHeaderOptions } from '../../protocol/header-option.js';
import {
  givenHeaderSecrets,
  isSecretName,
  mergeSecrets,
  REDACTED,
  scrubSecrets,
} from '../../recording/redact.js';
import type { TargetHeaders } from './http.js';
import type { ToolServerTarget } from './target.js';

/** A `--header` of an HTTP target: what is sent, and the value as given (`${VAR}` unexpanded) for reports. */
export type TargetHeader = GivenHeader;

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

/** The values of the target's `--header`s that reports do not show (`givenHeaderSecrets`), to scrub. */
export function headerSecrets(target: ToolServerTarget): string[] {
  return target.kind === 'stdio' ? [] : givenHeaderSecrets(target.headers ?? []);
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
