import { UsageError } from '../harness/errors.js';
import { type GivenHeader, parseHeaderOptions } from '../protocol/header-option.js';
import { scrubCutFragments } from '../recording/cut-fragments.js';
import { isSecretName, mergeSecrets, REDACTED, scrubSecrets } from '../recording/redact.js';

// `--header 'Name: value'` of a suite whose target is reached over HTTP (a tool server over SSE
// or Streamable HTTP, a messages service): parsed once, shown in reports without its secrets.

/**
 * `--header` values as given (commander collects a repeatable option into a list), refusing a
 * name in `owned` (a header the suite sets itself, or judges the target by).
 */
export function parseHeaders(
  value: unknown,
  owned: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): GivenHeader[] | undefined {
  if (value === undefined) return undefined;
  const parsed = parseHeaderOptions(Array.isArray(value) ? value : [value], env, owned);
  if (typeof parsed === 'string') throw new UsageError(parsed);
  return parsed;
}

/**
 * A `--header` as reports show it: as given, or `Name: [redacted]` for a credential-named
 * header given literally (one given as `${VAR}` shows only the variable's name).
 */
export function shownHeader(header: GivenHeader): string {
  const literalSecret = isSecretName(header.name) && !header.given.includes('${');
  return `${header.name}: ${literalSecret ? REDACTED : header.given}`;
}

/**
 * What hides a target's secret values (header values, credentials written into it) in a
 * report's text, whole or a part of one that a cut left, or undefined when there are none.
 */
export function headerScrubber(secrets: readonly string[]): ((text: string) => string) | undefined {
  const kept = mergeSecrets(secrets);
  return kept.length === 0 ? undefined : (text) => scrubCutFragments(scrubSecrets(text, kept), kept);
}
