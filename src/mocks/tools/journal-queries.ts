import type { Evidence, RpcItem } from '../../harness/results.js';
import { classifyMessage, type JsonRpcId, type JsonRpcRequest } from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
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

/** The requests the client sent (method and id), in order. */
export function clientRequests(entries: readonly ToolJournalEntry[], method?: string): ReceivedRequest[] {
  const out: ReceivedRequest[] = [];
  for (const entry of clientMessages(entries)) {
    const c = classifyMessage(entry.value);
    if (c.kind !== 'request') continue;
    if (method === undefined || c.message.method === method) out.push({ entry, request: c.message });
  }
  return out;
}

/** The first `method` the client sent (request or notification); undefined when none. */
export function firstMethod(entries: readonly ToolJournalEntry[]): string | undefined {
  for (const entry of clientMessages(entries)) {
    const c = classifyMessage(entry.value);
    if (c.kind === 'request' || c.kind === 'notification') return c.message.method;
  }
  return undefined;
}

/** Whether the client sent a notification named `method`. */
export function sentNotification(
  entries: readonly ToolJournalEntry[],
  method: string,
): ToolJournalEntry | undefined {
  return clientMessages(entries).find((e) => {
    const c = classifyMessage(e.value);
    return c.kind === 'notification' && c.message.method === method;
  });
}

/** A request id used more than once by the client within one session. */
export interface DuplicateId {
  readonly session: string;
  readonly id: JsonRpcId;
  /** The entries that carried it, in order. */
  readonly entries: readonly ToolJournalEntry[];
}

/** Request ids the client reused within a session (JSON-RPC: an id identifies one request). */
export function duplicateIds(entries: readonly ToolJournalEntry[]): DuplicateId[] {
  const seen = new Map<string, { session: string; id: JsonRpcId; entries: ToolJournalEntry[] }>();
  for (const { entry, request } of clientRequests(entries)) {
    // typeof keeps 1 and "1" apart: JSON-RPC compares ids by value and type.
    const key = `${entry.session}\u0000${typeof request.id}:${String(request.id)}`;
    const slot = seen.get(key) ?? { session: entry.session, id: request.id, entries: [] };
    slot.entries.push(entry);
    seen.set(key, slot);
  }
  return [...seen.values()].filter((s) => s.entries.length > 1);
}

/**
 * MCP lifecycle: `initialize` comes first, and `notifications/initialized` before any other
 * request except `ping`. Returns the entry that broke the order, or undefined when none did
 * (also when the client sent nothing but initialize).
 */
export function lifecycleViolation(
  entries: readonly ToolJournalEntry[],
): { entry: ToolJournalEntry; reason: string } | undefined {
  let initializeSeen = false;
  let initializedSeen = false;
  for (const entry of clientMessages(entries)) {
    const c = classifyMessage(entry.value);
    if (c.kind === 'notification' && c.message.method === METHODS.initialized) {
      if (!initializeSeen) return { entry, reason: 'notifications/initialized came before initialize' };
      initializedSeen = true;
      continue;
    }
    if (c.kind !== 'request') continue;
    const { method } = c.message;
    if (method === METHODS.initialize) {
      if (initializeSeen) return { entry, reason: 'a second initialize request in the same session' };
      initializeSeen = true;
      continue;
    }
    if (method === METHODS.ping) continue;
    if (!initializeSeen) return { entry, reason: `${method} came before initialize` };
    if (!initializedSeen) {
      return { entry, reason: `${method} came before the notifications/initialized notification` };
    }
  }
  return undefined;
}

/** The client's answer (success or error) to the server request `id`, if it sent one. */
export function answerTo(entries: readonly ToolJournalEntry[], id: JsonRpcId): ToolJournalEntry | undefined {
  return clientMessages(entries).find((e) => {
    const c = classifyMessage(e.value);
    return (c.kind === 'success' || c.kind === 'error') && c.message.id === id;
  });
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
