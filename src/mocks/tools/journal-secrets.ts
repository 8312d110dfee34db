import { mergeSecrets, scrubSecrets, secretsOf, secretsOfTarget } from '../../recording/redact.js';
import type { ToolJournalInput } from './journal.js';

/**
 * The secret values a request carries (credential headers, credential query parameters):
 * the journal scrubs them from every message it records after, as the messages mock does, so
 * a key a client repeats in a tool argument is not written down in clear.
 */
export function secretsOfRequest(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  url: string,
): string[] {
  return mergeSecrets(secretsOf(headers), secretsOfTarget(url), cookieValues(headers.cookie));
}

/**
 * The value of each pair of a Cookie header (`sid=...; theme=...`): the header is learned whole,
 * but a client repeats a session cookie's value alone, never the `name=value` pair. Short values
 * are dropped with the rest (mergeSecrets).
 */
function cookieValues(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const line of typeof header === 'string' ? [header] : header) {
    for (const pair of line.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const value = pair.slice(eq + 1).trim();
      // RFC 6265: a cookie value may be quoted; the quotes are not part of what is repeated.
      values.push(
        value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value,
      );
    }
  }
  return values;
}

/** Secret values learned from requests kept at once: the oldest are forgotten past it. */
export const MAX_LEARNED_SECRETS = 64;
/** Sessions whose requests' secrets are kept for the entries recorded under them, the oldest forgotten past it. */
export const MAX_SESSIONS_REMEMBERED = 1_000;
/** Characters of secrets kept for all sessions together (a request's headers are at most 16 KiB). */
export const SESSION_SECRETS_MAX_CHARS = 1024 * 1024;

/**
 * The secret values a journal scrubs from an entry: the request's own (always, however many
 * clients came since), those the requests of the entry's session carried (so a reply echoing a
 * session's token is scrubbed under any load), and the newest learned from any request. Every
 * set is bounded, the oldest forgotten first: a client sending a new key each request can
 * neither fill the memory nor keep later keys out.
 */
export class JournalSecrets {
  /** Insertion order is age: a value learned again moves to the end. */
  private readonly learned = new Set<string>();
  private learnedSorted: string[] = [];
  /** Insertion order is age, as for `learned`. */
  private readonly bySession = new Map<string, string[]>();
  private sessionChars = 0;

  /** Remember `secrets` as the newest learned, forgetting the oldest past MAX_LEARNED_SECRETS. */
  learn(secrets: readonly string[]): void {
    let added = false;
    for (const s of secrets) {
      if (this.learned.delete(s)) this.learned.add(s);
      else {
        this.learned.add(s);
        added = true;
      }
    }
    if (!added) return;
    for (const s of this.learned) {
      if (this.learned.size <= MAX_LEARNED_SECRETS) break;
      this.learned.delete(s);
    }
    this.learnedSorted = mergeSecrets([...this.learned]);
  }

  /** The secrets to scrub from an entry of `session` that a request carrying `own` caused; `own` is kept for the session. */
  of(session: string, own: readonly string[] = []): readonly string[] {
    if (own.length > 0) {
      this.learn(own);
      this.remember(session, own);
    }
    const kept = this.bySession.get(session);
    if (kept === undefined)
      return own.length === 0 ? this.learnedSorted : mergeSecrets(own, this.learnedSorted);
    return mergeSecrets(own, kept, this.learnedSorted);
  }

  private remember(session: string, own: readonly string[]): void {
    const before = this.bySession.get(session) ?? [];
    // Oldest first, the request's own last: a session sending a new key each request keeps its newest.
    const merged = [...before.filter((s) => !own.includes(s)), ...own].slice(-MAX_LEARNED_SECRETS);
    this.bySession.delete(session);
    this.bySession.set(session, merged);
    this.sessionChars += chars(merged) - chars(before);
    for (const [name, list] of this.bySession) {
      if (this.bySession.size <= MAX_SESSIONS_REMEMBERED && this.sessionChars <= SESSION_SECRETS_MAX_CHARS)
        break;
      // The session just remembered stays, whatever it holds: its own entries come next.
      if (name === session) continue;
      this.bySession.delete(name);
      this.sessionChars -= chars(list);
    }
  }
}

function chars(list: readonly string[]): number {
  let n = 0;
  for (const s of list) n += s.length;
  return n;
}

/** The entry with every known secret value replaced, in its text and in its parsed value. */
export function scrubEntry(input: ToolJournalInput, secrets: readonly string[]): ToolJournalInput {
  if (secrets.length === 0) return input;
  const text = scrubSecrets(input.text, secrets);
  if (input.value === undefined) return text === input.text ? input : { ...input, text };
  // The value was parsed from the text: a secret written with JSON escapes shows only in it.
  const valueText = JSON.stringify(input.value);
  const scrubbedValue = scrubSecrets(valueText, secrets);
  if (text === input.text && scrubbedValue === valueText) return input;
  return {
    ...input,
    text: text === input.text ? scrubbedValue : text,
    value: JSON.parse(scrubbedValue) as unknown,
  };
}
