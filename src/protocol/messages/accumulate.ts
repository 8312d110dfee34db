import { parseJsonBounded } from '../json/index.js';
import { TextBlock, ToolUseBlock } from './content-blocks.js';
import { ErrorBody } from './errors.js';
import { Message, STOP_REASONS } from './response.js';
import { StreamErrorEvent, StreamProtocolError } from './stream-errors.js';
import { MessageDeltaEvent, MessageStartEvent } from './stream-events.js';

type Phase = 'before-start' | 'awaiting-block' | 'in-block' | 'finishing' | 'stopped';

interface OpenBlock {
  index: number;
  /** `other`: a block type the spec does not describe; it and its deltas are skipped. */
  kind: 'text' | 'tool_use' | 'other';
  block: Record<string, unknown>;
  text: string;
  json: string;
  /** Citations of a text block's citations_delta events, in arrival order. */
  citations: unknown[] | undefined;
  deltas: number;
}

const EXPECTED: Record<Phase, string> = {
  'before-start': 'message_start',
  'awaiting-block': 'content_block_start or message_delta',
  'in-block': 'content_block_delta or content_block_stop',
  finishing: 'message_stop',
  stopped: 'end of stream',
};

function describe(ev: { type?: unknown; index?: unknown }): string {
  const type = typeof ev.type === 'string' ? ev.type : JSON.stringify(ev.type);
  return typeof ev.index === 'number' ? `${type} (index ${ev.index})` : type;
}

/**
 * The stream reducer: folds message stream events, in arrival order, into the final
 * message, enforcing Events rules 1 and 3. `push` throws a StreamProtocolError naming
 * what was expected and what arrived at the first violation; `finish` returns the
 * message, or throws `truncated` when the stream ended early.
 *
 * Frequent events (deltas) get cheap field checks instead of a schema parse, so the
 * reducer keeps up with the decoder; rare ones and the final message are parsed with
 * the protocol schemas.
 */
export class StreamAccumulator {
  private phase: Phase = 'before-start';
  private message: Record<string, unknown> | undefined;
  private readonly content: Record<string, unknown>[] = [];
  private open: OpenBlock | undefined;
  private events = 0;
  /** Indexes of blocks that closed without any delta (Events rule 1 asks for one or more). */
  readonly blocksWithoutDeltas: number[] = [];
  /** Event types outside the spec's list, ignored as the real API asks clients to. */
  readonly unknownEvents: string[] = [];
  /** Block types outside the spec's list (`thinking`...), skipped with their deltas (distinct, at most 32). */
  readonly unknownBlocks: string[] = [];
  /**
   * Delta types outside the spec's list on a known block (`signature_delta`...), skipped
   * (distinct, at most 32). A citations_delta on a text block is folded, not skipped.
   */
  readonly unknownDeltas: string[] = [];
  /** Blocks started so far, skipped ones included: the index the next block must carry. */
  private blocks = 0;

  get eventCount(): number {
    return this.events;
  }

  get ended(): boolean {
    return this.phase === 'stopped';
  }

  /** Push one event (the parsed `data` of a frame). */
  push(event: unknown): void {
    const at = this.events++;
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      throw new StreamProtocolError('shape', 'a JSON object', jsonOf(event), at);
    }
    const ev = event as Record<string, unknown>;
    switch (ev.type) {
      case 'ping':
        return;
      case 'error': {
        const body = ErrorBody.safeParse(ev);
        throw body.success
          ? new StreamErrorEvent(body.data, at)
          : new StreamProtocolError('shape', 'error event {type, error: {type, message}}', jsonOf(ev), at);
      }
      case 'message_start':
        this.onMessageStart(ev, at);
        return;
      case 'content_block_start':
        this.onBlockStart(ev, at);
        return;
      case 'content_block_delta':
        this.onBlockDelta(ev, at);
        return;
      case 'content_block_stop':
        this.onBlockStop(ev, at);
        return;
      case 'message_delta':
        this.onMessageDelta(ev, at);
        return;
      case 'message_stop':
        this.expectPhase('finishing', ev, at);
        this.phase = 'stopped';
        return;
      default:
        if (typeof ev.type !== 'string') {
          throw new StreamProtocolError('shape', 'an event with a string type', jsonOf(ev), at);
        }
        this.unknownEvents.push(ev.type);
    }
  }

  /** The final message. Throws `truncated` if message_stop has not arrived. */
  finish(): Message {
    if (this.phase !== 'stopped') {
      const open = this.open ? ` with block ${this.open.index} open` : '';
      throw new StreamProtocolError(
        'truncated',
        `${EXPECTED[this.phase]} before the stream ends`,
        `end of stream${open} after ${this.events} events`,
        this.events,
      );
    }
    const parsed = Message.safeParse({ ...this.message, content: this.content });
    if (!parsed.success) {
      throw new StreamProtocolError(
        'shape',
        'a final message of the response shape',
        parsed.error.message,
        this.events,
      );
    }
    return parsed.data;
  }

  private expectPhase(phase: Phase, ev: Record<string, unknown>, at: number): void {
    if (this.phase !== phase) {
      throw new StreamProtocolError('order', EXPECTED[this.phase], describe(ev), at);
    }
  }

  private onMessageStart(ev: Record<string, unknown>, at: number): void {
    this.expectPhase('before-start', ev, at);
    const parsed = MessageStartEvent.safeParse(ev);
    if (!parsed.success) {
      throw new StreamProtocolError(
        'shape',
        'message_start with the message container',
        issues(parsed.error),
        at,
      );
    }
    this.message = { ...parsed.data.message, usage: { ...parsed.data.message.usage } };
    this.phase = 'awaiting-block';
  }

  private onBlockStart(ev: Record<string, unknown>, at: number): void {
    this.expectPhase('awaiting-block', ev, at);
    const index = this.blocks;
    if (ev.index !== index) {
      throw new StreamProtocolError('index', `content_block_start at index ${index}`, describe(ev), at);
    }
    const block = blockOfStart(ev.content_block);
    if (block === undefined) {
      throw new StreamProtocolError(
        'shape',
        'content_block {type: text, text} or {type: tool_use, id, name, input: object}',
        jsonOf(ev.content_block),
        at,
      );
    }
    if (block.kind === 'other') remember(this.unknownBlocks, String(block.block.type));
    this.open = {
      index,
      kind: block.kind,
      block: block.block,
      text: block.text,
      json: '',
      citations: undefined,
      deltas: 0,
    };
    this.blocks++;
    this.phase = 'in-block';
  }

  private onBlockDelta(ev: Record<string, unknown>, at: number): void {
    this.expectPhase('in-block', ev, at);
    const open = this.open!;
    if (ev.index !== open.index) {
      throw new StreamProtocolError('index', `content_block_delta for index ${open.index}`, describe(ev), at);
    }
    open.deltas++;
    if (open.kind === 'other') return;
    const delta = ev.delta as Record<string, unknown> | undefined;
    const want = open.kind === 'text' ? 'text_delta' : 'input_json_delta';
    const type = delta !== null && typeof delta === 'object' ? delta.type : undefined;
    if (open.kind === 'text' && type === 'citations_delta') {
      // The real API streams a text block's citations only this way (the official SDK keeps them).
      if (delta?.citation === undefined) return;
      open.citations ??= [];
      open.citations.push(delta.citation);
      return;
    }
    if (typeof type === 'string' && type !== want && !KNOWN_DELTA_TYPES.has(type)) {
      // A delta type the spec does not list (signature_delta...): skipped.
      remember(this.unknownDeltas, type);
      return;
    }
    if (open.kind === 'text') {
      if (type !== 'text_delta' || typeof delta?.text !== 'string') {
        throw new StreamProtocolError(
          'delta-type',
          'text_delta {text: string} for a text block',
          jsonOf(delta),
          at,
        );
      }
      open.text += delta.text;
    } else {
      if (type !== 'input_json_delta' || typeof delta?.partial_json !== 'string') {
        throw new StreamProtocolError(
          'delta-type',
          'input_json_delta {partial_json: string} for a tool_use block',
          jsonOf(delta),
          at,
        );
      }
      open.json += delta.partial_json;
    }
  }

  private onBlockStop(ev: Record<string, unknown>, at: number): void {
    this.expectPhase('in-block', ev, at);
    const open = this.open!;
    if (ev.index !== open.index) {
      throw new StreamProtocolError('index', `content_block_stop for index ${open.index}`, describe(ev), at);
    }
    // A block of a type the reader does not know is skipped whole, as the real API advises.
    if (open.kind !== 'other' && open.deltas === 0) this.blocksWithoutDeltas.push(open.index);
    if (open.kind === 'text') {
      this.content.push({ ...open.block, text: open.text, ...citedOf(open) });
    } else if (open.kind === 'tool_use') {
      this.content.push({ ...open.block, input: parseToolInput(open, at) });
    }
    this.open = undefined;
    this.phase = 'awaiting-block';
  }

  private onMessageDelta(ev: Record<string, unknown>, at: number): void {
    this.expectPhase('awaiting-block', ev, at);
    const parsed = MessageDeltaEvent.safeParse(ev);
    if (!parsed.success) {
      throw new StreamProtocolError(
        'shape',
        `message_delta {delta: {stop_reason: ${STOP_REASONS.join('|')} or another string, stop_sequence}, usage: {output_tokens}}`,
        issues(parsed.error),
        at,
      );
    }
    const message = this.message!;
    const { stop_reason, stop_sequence, ...rest } = parsed.data.delta;
    this.message = {
      ...message,
      ...finalFieldsOf(rest, message),
      stop_reason,
      stop_sequence,
      usage: { ...(message.usage as object), ...countsOf(parsed.data.usage) },
    };
    this.phase = 'finishing';
  }
}

/** Add `name` to a list of distinct names kept small (a stream may repeat it a million times). */
function remember(list: string[], name: string): void {
  if (list.length < 32 && !list.includes(name)) list.push(name);
}

/** The delta types the spec lists; another type on a block is skipped, these must fit their block. */
const KNOWN_DELTA_TYPES: ReadonlySet<string> = new Set(['text_delta', 'input_json_delta']);

/**
 * The block a content_block_start opens: text, tool_use (the spec lists only `id` and
 * `name` for its start, so a missing `input` is an empty object), or a type the spec does
 * not describe (kept aside, skipped); undefined when a known type has a broken shape.
 */
function blockOfStart(
  value: unknown,
): { kind: OpenBlock['kind']; block: Record<string, unknown>; text: string } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const type = (value as { type?: unknown }).type;
  if (type === 'text') {
    const parsed = TextBlock.safeParse(value);
    return parsed.success ? { kind: 'text', block: parsed.data, text: parsed.data.text } : undefined;
  }
  if (type === 'tool_use') {
    const withInput = { input: {}, ...(value as Record<string, unknown>) };
    const parsed = ToolUseBlock.safeParse(withInput);
    return parsed.success ? { kind: 'tool_use', block: parsed.data, text: '' } : undefined;
  }
  if (typeof type !== 'string' || type === '') return undefined;
  return { kind: 'other', block: value as Record<string, unknown>, text: '' };
}

/**
 * Events rule 3: concatenate every partial_json of the block, parse once, at its stop.
 * Within the JSON limits: fragments may join to a value nested a million levels deep, which
 * parses but crashes whatever walks it next (JSON.stringify of the final message), so past
 * the limits the block is as broken as one whose fragments form no JSON.
 */
function parseToolInput(open: OpenBlock, at: number): unknown {
  if (open.json === '') return open.block.input;
  const parsed = parseJsonBounded(open.json);
  if (!parsed.ok) {
    throw new StreamProtocolError(
      'json',
      `the partial_json fragments of index ${open.index} to form JSON`,
      `${parsed.message} in ${abbreviate(open.json)}`,
      at,
    );
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new StreamProtocolError(
      'json',
      `a JSON object as input of index ${open.index}`,
      abbreviate(open.json),
      at,
    );
  }
  return value;
}

/** JSON text of a value for an error message; never throws (undefined, BigInt, cycles...). */
function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function abbreviate(s: string): string {
  return s.length <= 120 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 120))}... (${s.length} chars)`;
}

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** Fold a whole list of events. */
export function accumulate(events: Iterable<unknown>): Message {
  const acc = new StreamAccumulator();
  for (const e of events) acc.push(e);
  return acc.finish();
}

/** The `citations` of a text block at its stop: its start's list, then the citations_delta ones. */
function citedOf(open: OpenBlock): { citations?: unknown[] } {
  if (open.citations === undefined) return {};
  const first = open.block.citations;
  return { citations: Array.isArray(first) ? [...first, ...open.citations] : open.citations };
}

/** Fields of the message that message_start alone gives: a message_delta does not replace them. */
const START_FIELDS: ReadonlySet<string> = new Set(['id', 'type', 'role', 'model', 'content', 'usage']);

/**
 * What a message_delta's `delta` adds beside the stop reason: the real API sends the reply's
 * final `stop_details` and `container` there (null in message_start), and the official SDK
 * copies them onto the message. A null does not replace a value message_start gave (the
 * SDK keeps such a `container`).
 */
function finalFieldsOf(
  delta: Record<string, unknown>,
  message: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(delta).filter(([key, value]) => {
      const held = Object.hasOwn(message, key) ? message[key] : undefined;
      return !START_FIELDS.has(key) && (value !== null || held === undefined || held === null);
    }),
  );
}

/**
 * The counts a message_delta's usage states: the real API writes `input_tokens` and the cache
 * counts there as null when it has nothing new to say, and null does not replace the count
 * message_start gave (the official SDKs keep it).
 */
function countsOf(usage: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null));
}
