import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Headers every request must carry with exactly these values: a server behind a token, as an
 * SSE or Streamable HTTP tool server may be (spec: "standard HTTP authorization headers such
 * as bearer tokens"), so that a client's credentials can be tested against it.
 */
export type RequiredHeaders = Readonly<Record<string, string>>;

/** A request refused for a required header it lacks: 401, with a challenge for Authorization. */
export interface RequiredHeaderRefusal {
  readonly status: 401;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Why a request is refused for its headers, or undefined when it carries every required one.
 * The message names the header and whether it was missing or wrong, never the value required
 * or the value sent. Values are compared in constant time.
 */
export function requiredHeaderRefusal(
  required: RequiredHeaders | undefined,
  got: IncomingHttpHeaders,
): RequiredHeaderRefusal | undefined {
  if (required === undefined) return undefined;
  for (const [name, value] of Object.entries(required)) {
    const raw = got[name.toLowerCase()];
    const sent = Array.isArray(raw) ? raw.join(', ') : raw;
    if (sent !== undefined && sameValue(sent, value)) continue;
    const scheme = /^\S+(?=\s)/.exec(value)?.[0];
    return {
      status: 401,
      message: `Unauthorized: this server requires the ${name} header; the request's was ${sent === undefined ? 'missing' : 'not the value required'}`,
      headers:
        name.toLowerCase() === 'authorization' && scheme !== undefined ? { 'www-authenticate': scheme } : {},
    };
  }
  return undefined;
}

function sameValue(sent: string, required: string): boolean {
  const a = Buffer.from(sent, 'utf8');
  const b = Buffer.from(required, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a server's start-up line adds when requests must carry headers: their names, never the values. */
export function requiredHeadersNote(required: RequiredHeaders | undefined): string {
  return required === undefined
    ? ''
    : `; every request must carry ${Object.keys(required).join(', ')} (else 401)`;
}
