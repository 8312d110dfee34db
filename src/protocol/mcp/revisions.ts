import { PROTOCOL_VERSION } from './version.js';

/**
 * The MCP revisions wirecheck speaks (`--protocol`), oldest first. Each is the date-named
 * `protocolVersion` of a published revision of the Model Context Protocol; the spec fixes
 * the first one, and the official TypeScript SDK (1.32) supports all four.
 */
export const PROTOCOL_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type ProtocolRevision = (typeof PROTOCOL_REVISIONS)[number];

/** The spec's revision, the default of `--protocol`. */
export const DEFAULT_REVISION: ProtocolRevision = PROTOCOL_VERSION;

/** The newest revision wirecheck knows: what its reference server answers to a version it does not know. */
export const LATEST_REVISION: ProtocolRevision = '2025-11-25';

export function isProtocolRevision(value: unknown): value is ProtocolRevision {
  return typeof value === 'string' && (PROTOCOL_REVISIONS as readonly string[]).includes(value);
}

/** The revisions from `first` on (a rule a revision added). */
export function revisionsFrom(first: ProtocolRevision): readonly ProtocolRevision[] {
  return PROTOCOL_REVISIONS.slice(PROTOCOL_REVISIONS.indexOf(first));
}

/** The revisions up to `last` (a rule a later revision removed or changed). */
export function revisionsUntil(last: ProtocolRevision): readonly ProtocolRevision[] {
  return PROTOCOL_REVISIONS.slice(0, PROTOCOL_REVISIONS.indexOf(last) + 1);
}

/** Whether revision `a` comes before `b`. */
export function isBefore(a: ProtocolRevision, b: ProtocolRevision): boolean {
  return PROTOCOL_REVISIONS.indexOf(a) < PROTOCOL_REVISIONS.indexOf(b);
}

/**
 * The version a server of `supported` revisions answers to `requested`, by the version
 * negotiation of every revision's lifecycle: "If the server supports the requested protocol
 * version, it MUST respond with the same version. Otherwise, the server MUST respond with
 * another protocol version it supports. This SHOULD be the latest version supported by the
 * server."
 */
export function negotiatedVersion(
  requested: string,
  supported: readonly ProtocolRevision[] = PROTOCOL_REVISIONS,
): ProtocolRevision {
  const known = supported.find((r) => r === requested);
  if (known !== undefined) return known;
  const latest = supported.at(-1);
  if (latest === undefined) throw new TypeError('negotiatedVersion: no supported revision');
  return latest;
}

/** Whether a string has the form of an MCP protocol version (a date, YYYY-MM-DD). */
export function looksLikeVersion(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}
