import type { IncomingHttpHeaders } from 'node:http';
import type { RecordedHeaders } from '../fixtures/schema.js';

// The header handling of a relaying proxy: the messages proxy and the tool-session proxy.

/** Connection-level headers: they describe one hop, never the exchange. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/** Lower-case names, repeated values joined with ", ". */
export function flatHeaders(headers: IncomingHttpHeaders): RecordedHeaders {
  const out: RecordedHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** rawHeaders pairs minus hop-by-hop ones (and those named in `drop`), names as sent. */
export function forwardable(raw: readonly string[], drop: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || drop.has(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** For a request relayed upstream: the proxy sets its own `host`. */
export const DROP_HOST: ReadonlySet<string> = new Set(['host']);

/**
 * Request headers as sent upstream: forwardable ones (minus `drop`) with the client's
 * `accept-encoding` replaced by `identity`. A compressed reply would be recorded as bytes
 * the by-value scrub cannot read (a key echoed in it kept), and replayed, validated and
 * converted as the text it is not; the recording keeps the client's header as sent. An
 * upstream may compress all the same: the messages proxy then records the reply decoded
 * (decoded-reply.ts).
 */
export function upstreamHeaders(raw: readonly string[], drop: ReadonlySet<string> = new Set()): string[] {
  return [...forwardable(raw, new Set([...drop, 'accept-encoding'])), 'accept-encoding', 'identity'];
}
