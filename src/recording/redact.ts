/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Header names whose values are secrets (x-api-key, Authorization, Cookie, *-token...). */
export const SECRET_HEADER = /key|token|secret|authorization|cookie|password/i;

/**
 * Body field names whose values are secrets. Narrower than SECRET_HEADER on purpose: a
 * messages body is full of `max_tokens`, `input_tokens` and tool inputs with fields such
 * as `keyword`, which are content, not credentials.
 */
export const SECRET_BODY_FIELD =
  /^(api[-_]?key|x-api-key|authorization|password|passwd|secret|client[-_]secret|token|(access|refresh|auth|bearer|id|session)[-_]?token|cookie|set-cookie)$/i;

/** Shorter values are not scrubbed from free text: they would hit ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * The secret values of these headers (and the credential after `Bearer `/`Basic `), for
 * scrubbing wherever else they appear: a key pasted into a prompt must not reach a file.
 */
export function secretsOf(headers: Readonly<Record<string, string | string[] | undefined>>): string[] {
  const out = new Set<string>();
  for (const [name, raw] of Object.entries(headers)) {
    if (!SECRET_HEADER.test(name) || raw === undefined) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const v = value.trim();
      if (v.length >= MIN_SECRET_LENGTH) out.add(v);
      const credential = /^\S+\s+(\S+)$/.exec(v)?.[1];
      if (credential !== undefined && credential.length >= MIN_SECRET_LENGTH) out.add(credential);
    }
  }
  // Longest first, so a whole header value is replaced before its credential part.
  return [...out].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each secret replaced by REDACTED. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** Headers with secret ones redacted by name, and known secret values scrubbed from the rest. */
export function redactHeaders(
  headers: Readonly<Record<string, string>>,
  secrets: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = SECRET_HEADER.test(name) ? REDACTED : scrubSecrets(value, secrets);
  }
  return out;
}

/** A JSON value with secret fields (by SECRET_BODY_FIELD) redacted and known secrets scrubbed from strings. */
export function redactBody(value: unknown, secrets: readonly string[] = []): unknown {
  if (typeof value === 'string') return scrubSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactBody(v, secrets));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const name = scrubSecrets(k, secrets);
      out[name] =
        SECRET_BODY_FIELD.test(k) && v !== null && typeof v !== 'object' ? REDACTED : redactBody(v, secrets);
    }
    return out;
  }
  return value;
}
