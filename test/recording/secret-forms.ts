/**
 * A key and the forms a target may echo it in, and a check that a recorded text holds the
 * key in none of them: for tests that a recording keeps no secret, however written.
 */

/** What the client presents (x-api-key), as the audit recorded it. */
export const KEY = 'sk-ant-SECRETKEY1234567890';
/** A key holding `/` and `+` (a bearer token), for the escapes and alphabets they get. */
export const SLASH_KEY = 'tok/SLASH+KEY/0123456789';

const unicode = (s: string, every = 1) =>
  [...s]
    .map((c, i) => (i % every === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
    .join('');
const percent = (s: string, every = 1) =>
  [...s].map((c, i) => (i % every === 0 ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c)).join('');

/**
 * Forms of `key` as they stand in a JSON string's body (escapes written as in JSON): base64
 * (alone and in a `user:key` pair, so at another byte offset), URL-safe base64, every or
 * some characters `\u`-escaped, `/` escaped, every or some characters percent-encoded.
 */
export function encodedForms(key: string): string[] {
  return [
    Buffer.from(key).toString('base64'),
    Buffer.from(`user:${key}`).toString('base64'),
    Buffer.from(`ab${key}`).toString('base64url'),
    unicode(key),
    unicode(key, 3),
    key.replaceAll('/', '\\/'),
    percent(key),
    percent(key, 2),
  ];
}

/**
 * Every reading of `text` a client could make: as it stands, with JSON escapes decoded
 * (behind any number of backslashes: JSON in a fixture is quoted again), percent-decoded,
 * and each run of base64 characters decoded at each offset, in both alphabets.
 */
export function readings(text: string): string[] {
  const unescaped = text
    .replace(/\\+u([0-9A-Fa-f]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\\+\//g, '/');
  const out = [text, unescaped];
  for (const t of [text, unescaped]) {
    out.push(t.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))));
    for (const run of t.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
      for (let skip = 0; skip < 4; skip++) {
        const body = run.slice(skip).replace(/-/g, '+').replace(/_/g, '/');
        out.push(Buffer.from(body, 'base64').toString('latin1'));
      }
    }
  }
  return out;
}

/** The readings of `text` that hold `key` (none, for a text that keeps no secret). */
export function readingsWith(text: string, key: string): string[] {
  return readings(text).filter((r) => r.includes(key));
}
