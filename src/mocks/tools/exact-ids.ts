import type { BodyMessage } from '../../protocol/jsonrpc/index.js';

// JSON-RPC 2.0 ids may be any number, and the spec's table shows integers: a client with 64-bit
// integers may use ids past 2^53, which JSON.parse rounds (9007199254740993 becomes
// 9007199254740992). A reply MUST carry the id of its request, so the mock answers with the
// digits the client wrote, and the journal's queries tell such ids apart by those digits.

/** JSON.parse with the source text of each value (ES2025 "JSON.parse source text access"; Node 21 and later). */
type SourceReviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

const json = JSON as unknown as {
  parse(text: string, reviver: SourceReviver): unknown;
  rawJSON?: (text: string) => unknown;
  isRawJSON?: (value: unknown) => boolean;
};

/** A parsed id that may not be the number the client wrote: an integer past 2^53 (JSON.parse rounds it). */
export function isInexactId(id: unknown): boolean {
  return typeof id === 'number' && Number.isInteger(id) && !Number.isSafeInteger(id);
}

/** Whether any message of a body (its bodyMessages: one message or a batch's) has an inexact id. */
export function hasInexactId(messages: readonly BodyMessage[]): boolean {
  return messages.some((c) => 'message' in c && isInexactId((c.message as { id?: unknown }).id));
}

/**
 * The source text of each message's inexact id in `text`, by the message's index in the body
 * (0 for a single message, the element's index in a batch); undefined where the id is exact,
 * and for every message when the text cannot be read again (cut short in a journal, or a
 * runtime without source text access).
 */
export function inexactIdSources(text: string): (string | undefined)[] {
  const sources = new WeakMap<object, string>();
  let value: unknown;
  try {
    value = json.parse(text, function (this: unknown, key, v, context) {
      if (
        key === 'id' &&
        isInexactId(v) &&
        context?.source !== undefined &&
        typeof this === 'object' &&
        this
      ) {
        sources.set(this, context.source);
      }
      return v;
    });
  } catch {
    return [];
  }
  const messages = Array.isArray(value) ? value : [value];
  return messages.map((m) => (typeof m === 'object' && m !== null ? sources.get(m) : undefined));
}

/** An integer's source text in one form (digits only, no sign of zero, no leading zeros). */
export function canonicalIdText(source: string): string {
  return /^-?\d+$/.test(source) ? BigInt(source).toString() : source;
}

/**
 * The id to answer with: the request's own digits when its id is inexact and the runtime can
 * write them (JSON.rawJSON, Node 21 and later), else the parsed id.
 */
export function replyIdOf(id: unknown, source: string | undefined): unknown {
  if (source === undefined || json.rawJSON === undefined || !/^-?\d+$/.test(source)) return id;
  return json.rawJSON(source);
}

/** Whether a value is a JSON.rawJSON object (an id written with its own digits). */
export function isRawJson(value: unknown): boolean {
  return json.isRawJSON?.(value) === true;
}
