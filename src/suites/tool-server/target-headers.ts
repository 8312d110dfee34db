import { type GivenHeader, OWNED_HEADER_NAMES } from '../../protocol/header-option.js';
import { givenHeaderSecrets } from '../../recording/redact.js';
import { headerScrubber, parseHeaders as parseGivenHeaders, shownHeader } from '../given-headers.js';
import type { TargetHeaders } from './http.js';
import type { ToolServerTarget } from './target.js';

export { headerScrubber, shownHeader };

/** A `--header` of an HTTP target: what is sent, and the value as given (`${VAR}` unexpanded) for reports. */
export type TargetHeader = GivenHeader;

/** `--header` values as given, none naming a header the suite's MCP client sets itself. */
export function parseHeaders(
  value: unknown,
  env: NodeJS.ProcessEnv = process.env,
): TargetHeader[] | undefined {
  return parseGivenHeaders(value, OWNED_HEADER_NAMES, env);
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
