import { z } from 'zod';

/**
 * The Streamable HTTP transport of MCP (revisions 2025-03-26 and later): one endpoint that takes POST
 * (a JSON-RPC message, answered with `application/json` or a `text/event-stream`), an optional GET
 * stream and DELETE to end a session. The spec (shared/seed) fixes 2024-11-05 over stdio and HTTP+SSE;
 * everything here is the later revisions' text.
 */
export const STREAMABLE_HTTP_HEADERS = {
  /** Issued by the server in the response to `initialize`; the client sends it on every later request. */
  sessionId: 'mcp-session-id',
  /** Sent by the client on every request after `initialize` (2025-06-18 and later). */
  protocolVersion: 'mcp-protocol-version',
  /** Sent by a client resuming a GET stream: the id of the last SSE event it received. */
  lastEventId: 'last-event-id',
} as const;

export const STREAMABLE_HTTP_CONTENT_TYPES = {
  json: 'application/json',
  eventStream: 'text/event-stream',
} as const;

/** The path the reference server and the mocks serve the endpoint on. Any path is allowed by the protocol. */
export const STREAMABLE_HTTP_DEFAULT_PATH = '/mcp';

/**
 * "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)." It SHOULD be
 * globally unique and cryptographically secure; that part cannot be seen on the wire.
 */
export const mcpSessionIdSchema = z
  .string()
  .min(1)
  .regex(/^[\x21-\x7e]+$/, 'visible ASCII (0x21 to 0x7E) only');

function mediaTypesOf(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((part) => (part.split(';')[0] ?? '').trim().toLowerCase())
    .filter((type) => type !== '');
}

/** One media range of an `Accept` header, lower-cased, with its quality (1 when none or unreadable). */
interface MediaRange {
  readonly type: string;
  readonly quality: number;
}

function mediaRangesOf(header: string): MediaRange[] {
  return header.split(',').flatMap((part) => {
    const [range = '', ...params] = part.split(';').map((p) => p.trim());
    if (range === '') return [];
    const q = params.find((p) => /^q\s*=/i.test(p))?.replace(/^q\s*=\s*/i, '');
    // A quality that does not parse is taken as the default 1: an odd header is no refusal.
    const quality = q === undefined || q === '' || Number.isNaN(Number(q)) ? 1 : Number(q);
    return [{ type: range.toLowerCase(), quality }];
  });
}

/**
 * How an `Accept` header takes a media type, with HTTP semantics (RFC 9110, 12.5.1): `absent`
 * when no range covers it (directly, through `type/*` or `*\/*`); `refused` when the most
 * specific ranges that cover it all give it q=0 (`text/event-stream;q=0, *\/*`); else `accepted`.
 * `range` is the deciding range.
 */
export function acceptanceOf(
  accept: string | undefined,
  mediaType: string,
): { readonly verdict: 'accepted' | 'refused' | 'absent'; readonly range?: string } {
  if (accept === undefined) return { verdict: 'absent' };
  const [kind] = mediaType.split('/');
  const specificity = (type: string) =>
    type === mediaType ? 3 : type === `${kind}/*` ? 2 : type === '*/*' ? 1 : 0;
  const ranges = mediaRangesOf(accept);
  const most = Math.max(0, ...ranges.map((r) => specificity(r.type)));
  if (most === 0) return { verdict: 'absent' };
  const deciding = ranges.filter((r) => specificity(r.type) === most);
  const taken = deciding.find((r) => r.quality > 0);
  return taken === undefined
    ? { verdict: 'refused', range: deciding[0]?.type }
    : { verdict: 'accepted', range: taken.type };
}

/** Whether an `Accept` header admits a media type: a range covers it and does not give it q=0. */
export function acceptsMediaType(accept: string | undefined, mediaType: string): boolean {
  return acceptanceOf(accept, mediaType).verdict === 'accepted';
}

/**
 * "The client MUST include an Accept header, listing both application/json and text/event-stream as
 * supported content types" (on every POST).
 */
export function acceptsBothPostAnswers(accept: string | undefined): boolean {
  return (
    acceptsMediaType(accept, STREAMABLE_HTTP_CONTENT_TYPES.json) &&
    acceptsMediaType(accept, STREAMABLE_HTTP_CONTENT_TYPES.eventStream)
  );
}

/** The media type of a `Content-Type` header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return mediaTypesOf(contentType)[0];
}

/**
 * Ids of the requests in one POSTed message (a batch may carry several): the responses the
 * answer to that POST owes (a JSON body or an event stream that ends once they went out).
 */
export function requestIdsOf(message: unknown): Set<string | number> {
  const ids = new Set<string | number>();
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, method } = item as { id?: unknown; method?: unknown };
    // A number JSON cannot carry back (-1e400 parses to -Infinity) is no id: the request is
    // refused with id null, so no response would ever carry it.
    if (typeof method === 'string' && (typeof id === 'string' || Number.isFinite(id)))
      ids.add(id as string | number);
  }
  return ids;
}

/** The id of a response (a message with `result` or `error` and no `method`), if it is one. */
export function responseIdOf(value: unknown): string | number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  if (v.method !== undefined || (v.result === undefined && v.error === undefined)) return undefined;
  return typeof v.id === 'string' || typeof v.id === 'number' ? v.id : undefined;
}

/** The MCP revisions that define the Streamable HTTP transport, oldest first. */
export const STREAMABLE_HTTP_REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

/**
 * "If the server does not receive an MCP-Protocol-Version header, and has no other way to identify
 * the version ... the server SHOULD assume protocol version 2025-03-26" (2025-06-18 and later).
 */
export const ASSUMED_REVISION_WITHOUT_HEADER = '2025-03-26';

/**
 * 2025-06-18: over HTTP the client sends the negotiated version in `MCP-Protocol-Version` on every
 * request after initialize; a server answers an invalid or unsupported one with 400. Before it
 * the header does not exist.
 */
export const PROTOCOL_VERSION_HEADER_SINCE = '2025-06-18';

/** 2025-06-18 removed JSON-RPC batching: from this revision on a POST body is one message. */
export const BATCHES_REMOVED_IN = '2025-06-18';

/**
 * 2025-11-25: a server opening an SSE stream SHOULD first send an event with an id and an empty data
 * field, so the client can reconnect (with Last-Event-ID) before the first real message.
 */
export const PRIMING_EVENT_SINCE = '2025-11-25';

/** Whether revision `version` is `since` or later (MCP revisions are ISO dates: text order is time order). */
export function revisionAtLeast(version: string | undefined, since: string): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= since;
}

/**
 * Whether a POST body holds at least one JSON-RPC request (a message with a method and an id). A body
 * of notifications and responses only is answered 202 with no body; one with a request gets a JSON
 * or an event-stream answer.
 */
export function bodyHasRequest(value: unknown): boolean {
  const items = Array.isArray(value) ? value : [value];
  return items.some(
    (item) =>
      typeof item === 'object' &&
      item !== null &&
      !Array.isArray(item) &&
      typeof (item as { method?: unknown }).method === 'string' &&
      'id' in item,
  );
}

/** Whether a POST body is (or, in a batch, holds) an `initialize` request. */
export function bodyHasInitialize(value: unknown): boolean {
  const items = Array.isArray(value) ? value : [value];
  return items.some(
    (item) =>
      typeof item === 'object' &&
      item !== null &&
      (item as { method?: unknown }).method === 'initialize' &&
      'id' in item,
  );
}
