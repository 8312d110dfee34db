import type { Evidence, RpcItem } from '../../harness/results.js';
import {
  type BodyMessage,
  bodyMessages,
  type JsonRpcId,
  type JsonRpcRequest,
} from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import { canonicalIdText, hasInexactId, inexactIdSources } from './exact-ids.js';
import type { ToolJournalEntry } from './journal.js';

// Pure questions over a journal (an array of entries, e.g. read back from a journal file).

/** A JSON-RPC request the client sent, with the journal entry that carried it. */
export interface ReceivedRequest {
  readonly entry: ToolJournalEntry;
  readonly request: JsonRpcRequest;
}

/** Received JSON-RPC messages of the client, as classified values. */
export function clientMessages(entries: readonly ToolJournalEntry[]): ToolJournalEntry[] {
  return entries.filter((e) => e.direction === 'received' && e.kind === 'message');
}

/**
 * Every JSON-RPC message of the journal's entries in `direction`, in order, each with the entry
 * that carried it: a batch's messages one by one (MCP: a peer MUST support receiving batches).
 */
function* messagesOf(
  entries: readonly ToolJournalEntry[],
  direction: ToolJournalEntry['direction'],
): Generator<{ entry: ToolJournalEntry; c: BodyMessage }> {
  for (const entry of entries) {
    if (entry.direction !== direction || entry.kind !== 'message' || entry.value === undefined) continue;
    for (const c of bodyMessages(entry.value)) yield { entry, c };
  }
}

/** The requests the client sent (method and id), in order. */
export function clientRequests(entries: readonly ToolJournalEntry[], method?: string): ReceivedRequest[] {
  const out: ReceivedRequest[] = [];
  for (const { entry, c } of messagesOf(entries, 'received')) {
    if (c.kind !== 'request') continue;
    if (method === undefined || c.message.method === method) out.push({ entry, request: c.message });
  }
  return out;
}

/** The first `method` the client sent (request or notification); undefined when none. */
export function firstMethod(entries: readonly ToolJournalEntry[]): string | undefined {
  for (const { c } of messagesOf(entries, 'received')) {
    if (c.kind === 'request' || c.kind === 'notification') return c.message.method;
  }
  return undefined;
}

/** Whether the client sent a notification named `method`. */
export function sentNotification(
  entries: readonly ToolJournalEntry[],
  method: string,
): ToolJournalEntry | undefined {
  for (const { entry, c } of messagesOf(entries, 'received')) {
    if (c.kind === 'notification' && c.message.method === method) return entry;
  }
  return undefined;
}

/**
 * The result the server sent for the client's last tools/call of `tool` (the first success
 * with its id in its session after it); undefined when there was no such call or no result.
 */
export function sentCallResult(entries: readonly ToolJournalEntry[], tool: string): unknown {
  const call = clientRequests(entries, METHODS.toolsCall)
    .filter((r) => (r.request.params as { name?: unknown } | undefined)?.name === tool)
    .at(-1);
  if (call === undefined) return undefined;
  const later = entries.filter((e) => e.seq > call.entry.seq && e.session === call.entry.session);
  for (const { c } of messagesOf(later, 'sent')) {
    if (c.kind === 'success' && c.message.id === call.request.id) return c.message.result;
  }
  return undefined;
}

/** A request id used more than once by the client within one session. */
export interface DuplicateId {
  readonly session: string;
  readonly id: JsonRpcId;
  /** The entries that carried it, in order. */
  readonly entries: readonly ToolJournalEntry[];
}

/**
 * Request ids the client reused within a session (JSON-RPC: an id identifies one request).
 * An integer id past 2^53 is told apart by the digits the client wrote (JSON.parse rounds
 * 9007199254740993 to 9007199254740992: two ids, not one).
 */
export function duplicateIds(entries: readonly ToolJournalEntry[]): DuplicateId[] {
  const seen = new Map<string, { session: string; id: JsonRpcId; entries: ToolJournalEntry[] }>();
  for (const entry of entries) {
    if (entry.direction !== 'received' || entry.kind !== 'message' || entry.value === undefined) continue;
    const messages = bodyMessages(entry.value);
    const sources = hasInexactId(messages) ? inexactIdSources(entry.text) : [];
    for (const [index, c] of messages.entries()) {
      if (c.kind !== 'request') continue;
      const { id } = c.message;
      const source = sources[index];
      // typeof keeps 1 and "1" apart: JSON-RPC compares ids by value and type.
      const key = `${entry.session}\u0000${typeof id}:${source === undefined ? String(id) : canonicalIdText(source)}`;
      const slot = seen.get(key) ?? { session: entry.session, id, entries: [] };
      slot.entries.push(entry);
      seen.set(key, slot);
    }
  }
  return [...seen.values()].filter((s) => s.entries.length > 1);
}

/** The client's answer (success or error) to the server request `id`, if it sent one: its entry, and the answer itself (an entry may carry a batch). */
export function answerTo(
  entries: readonly ToolJournalEntry[],
  id: JsonRpcId,
): (ToolJournalEntry & { readonly answer: Extract<BodyMessage, { kind: 'success' | 'error' }> }) | undefined {
  for (const { entry, c } of messagesOf(entries, 'received')) {
    if ((c.kind === 'success' || c.kind === 'error') && c.message.id === id) return { ...entry, answer: c };
  }
  return undefined;
}

/** The mock's success answer to the initialize request `init` carried, in its session. */
export function initializeAnswer(
  entries: readonly ToolJournalEntry[],
  init: ToolJournalEntry,
): ToolJournalEntry | undefined {
  const request = bodyMessages(init.value).find(
    (c) => c.kind === 'request' && c.message.method === METHODS.initialize,
  );
  if (request?.kind !== 'request') return undefined;
  return entries.find(
    (e) =>
      e.direction === 'sent' &&
      e.kind === 'message' &&
      e.session === init.session &&
      e.seq > init.seq &&
      bodyMessages(e.value).some((c) => c.kind === 'success' && c.message.id === request.message.id),
  );
}

/** The JSON-RPC traffic of a journal as report evidence; `markSeq` is the entry to blame. */
export function journalEvidence(
  entries: readonly ToolJournalEntry[],
  title: string,
  markSeq?: number,
): Extract<Evidence, { kind: 'jsonrpc' }> {
  const shown = entries.filter((e) => e.kind === 'message' || e.kind === 'banner' || e.kind === 'endpoint');
  const t0 = shown[0]?.atMs ?? 0;
  const messages: RpcItem[] = shown.map((e) => ({
    atMs: Math.max(0, e.atMs - t0),
    session: e.session,
    direction: e.direction,
    text: e.kind === 'endpoint' ? `event: endpoint ${e.text}` : e.text,
  }));
  const mark = markSeq === undefined ? -1 : shown.findIndex((e) => e.seq === markSeq);
  return mark >= 0 ? { kind: 'jsonrpc', title, messages, mark } : { kind: 'jsonrpc', title, messages };
}
