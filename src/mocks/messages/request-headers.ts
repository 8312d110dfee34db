import type { AuthScheme, KeyHeader } from './journal.js';

/** Header names lower-cased, values as sent; a repeated header joined with ", " (from Node's rawHeaders). */
export function headersOf(rawHeaders: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

export interface Credentials {
  scheme: AuthScheme;
  /** The key presented, if any. */
  key: string | undefined;
}

/**
 * The key a request presents: `x-api-key` (the spec's header, what SDK 0.x sends) wins
 * over `Authorization: Bearer` (what @anthropic-ai/sdk 1.x sends for an API key).
 */
export function credentialsOf(headers: Record<string, string>): Credentials {
  const apiKey = headers['x-api-key']?.trim();
  if (apiKey) return { scheme: 'x-api-key', key: apiKey };
  const bearer = /^bearer\s+(\S.*)$/i.exec(headers.authorization?.trim() ?? '');
  if (bearer?.[1]) return { scheme: 'bearer', key: bearer[1].trim() };
  return { scheme: 'none', key: undefined };
}

/** Which headers carried `key` (the mock's configured key): none when there is no key. */
export function configuredKeyIn(headers: Record<string, string>, key: string | undefined): KeyHeader[] {
  if (key === undefined) return [];
  const out: KeyHeader[] = [];
  if (headers['x-api-key']?.trim() === key) out.push('x-api-key');
  const bearer = /^bearer\s+(\S.*)$/i.exec(headers.authorization?.trim() ?? '');
  if (bearer?.[1]?.trim() === key) out.push('bearer');
  return out;
}

/** Version headers accepted, the spec's name first. */
export const VERSION_HEADERS = ['service-version', 'anthropic-version'] as const;

export function versionOf(headers: Record<string, string>): { header: string; value: string } | null {
  for (const header of VERSION_HEADERS) {
    const value = headers[header];
    if (value !== undefined) return { header, value };
  }
  return null;
}
