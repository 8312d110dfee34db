import { show } from '../../harness/check.js';
import type { JournalEntry } from '../../mocks/messages/index.js';
import { type Difference, differences } from '../../protocol/compare.js';
import { normalizeBlock, normalizeTurn } from '../../protocol/messages/defaults.js';
import type { Message } from '../../protocol/messages/index.js';
import { bodyNotKept } from '../journal-bodies.js';
import type { AgentCaseResult } from './context.js';

/**
 * A content block reduced to the fields the spec names ("Content blocks") and brought to
 * one form (src/protocol/messages/defaults.ts): `is_error` left out is false, a string
 * tool_result content is one text block. Two agents that write the same turn differently
 * but equivalently (a default written out or left out) give the same reduced blocks.
 */
export type SpecBlock =
  | { type: 'text'; text: unknown }
  | { type: 'tool_use'; id: unknown; name: unknown; input: unknown }
  | { type: 'tool_result'; tool_use_id: unknown; content: unknown; is_error: unknown }
  | { type: unknown };

export interface SpecTurn {
  role: unknown;
  blocks: SpecBlock[];
}

function specBlock(raw: unknown): SpecBlock {
  const block = normalizeBlock(raw);
  if (block === null || typeof block !== 'object') return { type: typeof block };
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: b.id,
        name: b.name,
        // normalizeBlock left a bash input's `restart: false` out, as a default.
        input: b.input,
      };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: b.tool_use_id,
        content: Array.isArray(b.content) ? b.content.map(specBlock) : b.content,
        is_error: b.is_error,
      };
    default:
      return { type: b.type };
  }
}

/** The text a tool_result carries (its text blocks joined; the content as it is when it is a string). */
export function textOfResult(block: ToolResultBlock): string {
  const { content } = block;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c: unknown) => {
      const t = (c ?? {}) as { type?: unknown; text?: unknown };
      return t.type === 'text' && typeof t.text === 'string' ? t.text : '';
    })
    .join('');
}

/** Why the journal holds no whole body of a request (bodyNotKept), or undefined. */
export function bodyCut(entry: JournalEntry): string | undefined {
  const why = bodyNotKept(entry);
  return why === undefined ? undefined : `${why}, too little to judge`;
}

/**
 * For a NotExercised message: the requests of `results` left unjudged because their bodies
 * were cut (bodyCut), after "; ", or '' when there are none.
 */
export function cutBodiesNote(results: readonly AgentCaseResult[]): string {
  const cut = results.flatMap((result) =>
    result.requests.flatMap((entry, i) =>
      bodyNotKept(entry) === undefined ? [] : [`case ${result.spec.name}, request ${i + 1}`],
    ),
  );
  if (cut.length === 0) return '';
  const shown = cut.length > 3 ? `${cut.slice(0, 3).join('; ')}; ...` : cut.join('; ');
  return `; ${cut.length} request(s) were not judged because the mock's journal did not keep their whole bodies (over its limit of a body, or withheld for the secrets they presented: ${shown})`;
}

/** The turns of a request body in reduced form; undefined when there are none, or when the body was cut (bodyCut). */
export function turnsOf(entry: JournalEntry): SpecTurn[] | undefined {
  // A cut body is its first bytes as text, a withheld one a note: never a conversation to compare or to fail.
  if (bodyNotKept(entry) !== undefined) return undefined;
  const messages = (entry.body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  return messages.map((raw: unknown) => {
    const t = (normalizeTurn(raw) ?? {}) as { role?: unknown; content?: unknown };
    return { role: t.role, blocks: Array.isArray(t.content) ? t.content.map(specBlock) : [] };
  });
}

/** A turn of the judging view: consecutive turns of one role, as sent, combined into one. */
export interface JudgedTurn extends SpecTurn {
  /** The indexes, in the request as sent, of the turns combined into this one. */
  readonly sentAt: readonly number[];
}

/**
 * The turns as the real API reads them: "Consecutive user or assistant turns in your request
 * will be combined into a single turn" (the Messages API reference, `messages`). An agent
 * that appends a reminder after its results, or its environment after the prompt, or echoes a
 * reply as two assistant turns, sends one turn to that reader; the checks of a turn's
 * structure judge it so. `offset` is the index of `turns[0]` in the request as sent.
 */
export function combineTurns(turns: readonly SpecTurn[], offset = 0): JudgedTurn[] {
  const out: { role: unknown; blocks: SpecBlock[]; sentAt: number[] }[] = [];
  turns.forEach((turn, i) => {
    const last = out.at(-1);
    // A turn whose role is no string is nothing the real API would combine: requests-valid judges it.
    if (last !== undefined && last.role === turn.role && typeof turn.role === 'string') {
      last.blocks.push(...turn.blocks);
      last.sentAt.push(offset + i);
    } else {
      out.push({ role: turn.role, blocks: [...turn.blocks], sentAt: [offset + i] });
    }
  });
  return out;
}

/** Every difference between two reduced values (both sides hold only fields the spec names). */
export function specDifferences(expected: unknown, actual: unknown): Difference[] {
  return differences(expected, actual, { extra: 'report' });
}

export function textOfTurn(turn: SpecTurn | undefined): string {
  if (!turn) return '';
  return turn.blocks
    .flatMap((b) => (b.type === 'text' && 'text' in b && typeof b.text === 'string' ? [b.text] : []))
    .join('\n');
}

export type ToolUseBlock = Extract<SpecBlock, { type: 'tool_use' }>;
export type ToolResultBlock = Extract<SpecBlock, { type: 'tool_result' }>;

export function isToolResult(block: SpecBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}

/** The served message's blocks as spec blocks. */
export function servedBlocks(message: Message): SpecBlock[] {
  return message.content.map(specBlock);
}

export function toolUsesOfMessage(message: Message): ToolUseBlock[] {
  return servedBlocks(message).filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/**
 * The tool_result answering `toolUseId` in a request as the agent wrote it, before defaults were
 * written out (`is_error` left out stays left out): a failure shows what arrived.
 */
export function arrivedToolResult(entry: JournalEntry, toolUseId: unknown): unknown {
  const messages = (entry.body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let t = messages.length - 1; t >= 0; t--) {
    const content = (messages[t] as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    const block = content.find(
      (b: { type?: unknown; tool_use_id?: unknown } | null) =>
        b?.type === 'tool_result' && b.tool_use_id === toolUseId,
    );
    if (block !== undefined) return block;
  }
  return undefined;
}

/**
 * A follow-up: request `index` of a case, sent after the reply to the request before it
 * asked for tools. `earlier` are the turns of that request before, `turns` this one's.
 */
export interface FollowUp {
  readonly label: string;
  readonly earlier: SpecTurn[];
  readonly turns: SpecTurn[];
  /** The reply to the request before (holding the tool_use blocks). */
  readonly reply: Message;
  readonly entry: JournalEntry;
}

/** Every follow-up of the cases whose bodies could be read. */
export function followUpsOf(results: readonly AgentCaseResult[]): FollowUp[] {
  const out: FollowUp[] = [];
  for (const result of results) {
    for (let i = 1; i < result.requests.length; i++) {
      const reply = result.served[i - 1];
      const earlier = turnsOf(result.requests[i - 1]!);
      const turns = turnsOf(result.requests[i]!);
      if (!reply || !earlier || !turns || toolUsesOfMessage(reply).length === 0) continue;
      out.push({
        label: `case ${result.spec.name}, request ${i + 1}`,
        earlier,
        turns,
        reply,
        entry: result.requests[i]!,
      });
    }
  }
  return out;
}

/** Every difference between the earlier turns and the start of this request. */
export function historyDifferences(f: FollowUp): Difference[] {
  return specDifferences(f.earlier, f.turns.slice(0, f.earlier.length));
}

/**
 * Where the turns this request adds begin: after the earlier turns when it starts with them
 * (or with as many turns, changed). A request no longer than the one before has left the
 * earlier turns out (agent.loop.history-kept fails it: an agent that sends only the new turns,
 * expecting the service to hold the rest); its new turns are those after its last assistant
 * turn, so the results it sends are judged for what they are, not blamed for the history.
 */
export function newTurnsStart(f: FollowUp): number {
  if (!sendsOnlyNewTurns(f)) return f.earlier.length;
  return f.turns.map((t) => t.role).lastIndexOf('assistant') + 1;
}

/** The request is no longer than the one before and does not start with its turns. */
export function sendsOnlyNewTurns(f: FollowUp): boolean {
  return f.turns.length <= f.earlier.length && historyDifferences(f).length > 0;
}

/**
 * Why a request that sends only its new turns fails, for the checks it fails. A request that
 * continues a thread the service holds (the `thread` field of the message-threads beta, which
 * the official SDK's tool runner uses by default) is named as such: the spec's service keeps
 * no conversation between requests.
 */
export function onlyNewTurnsText(f: FollowUp): string {
  const thread = (f.entry.body as { thread?: unknown } | undefined)?.thread;
  const how =
    thread === undefined
      ? 'as if the service held the conversation'
      : `continuing a conversation the service would hold (thread: ${show(thread)}, a beta the spec does not describe)`;
  return `the request holds ${f.turns.length} turn(s) where the one before held ${f.earlier.length}: it sends only its new turns, ${how}, and the spec's service holds none`;
}

/**
 * The turns this request adds (from newTurnsStart), consecutive turns of one role combined
 * (combineTurns): the reply's assistant turn first, then the user turn of its results.
 */
export function addedTurns(f: FollowUp): JudgedTurn[] {
  const start = newTurnsStart(f);
  return combineTurns(f.turns.slice(start), start);
}

/** The tool_result blocks of the turns this request adds, with the index (as sent) of the turn holding each. */
export function newToolResults(f: FollowUp): { turn: number; block: ToolResultBlock }[] {
  const start = newTurnsStart(f);
  return f.turns
    .slice(start)
    .flatMap((turn, k) => turn.blocks.filter(isToolResult).map((block) => ({ turn: start + k, block })));
}

/** A request as a short line for failure messages. */
export function describeRequest(entry: JournalEntry, index: number): string {
  const turns = turnsOf(entry);
  const status = entry.status === undefined ? 'no status' : `status ${entry.status}`;
  const refused =
    entry.bodyError !== undefined
      ? `: ${entry.bodyError}`
      : entry.realApiRefusal !== undefined
        ? `; the real API would refuse it: ${entry.realApiRefusal}`
        : '';
  const what =
    turns !== undefined
      ? `${turns.length} turns`
      : entry.bodyTruncated !== undefined
        ? `a ${entry.bodyTruncated.bytes}-byte body, cut in the journal`
        : entry.bodyWithheld !== undefined
          ? `a ${entry.bodyWithheld.bytes}-byte body, withheld from the journal`
          : 'no messages';
  return `#${index + 1} (${what}, ${status}${refused})`;
}

export function describeRequests(requests: readonly JournalEntry[]): string {
  if (requests.length === 0) return 'no request reached the mock';
  const shown = requests.map(describeRequest);
  // A runaway loop sends dozens: its start and its end tell the story.
  const lines = shown.length > 6 ? [...shown.slice(0, 3), '...', ...shown.slice(-2)] : shown;
  return `${requests.length} requests: ${lines.join('; ')}`;
}
