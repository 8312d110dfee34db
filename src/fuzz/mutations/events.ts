import fc from 'fast-check';
import type { ErrorBody, Message, StreamEvent, StreamViolationKind } from '../../protocol/messages/index.js';

/**
 * Damage to a valid event list whose outcome the stream reducer's contract fixes
 * exactly: which violation, at which event, or which message when the damage is benign.
 * Targets are taken modulo the candidates, so any mutation applies to any stream.
 */
export type EventMutation =
  | { op: 'truncate'; at: number }
  | { op: 'drop'; target: number }
  | { op: 'duplicate'; target: number }
  | { op: 'reindex'; target: number; by: number }
  | { op: 'swap-delta-type'; target: number }
  | { op: 'junk-delta'; target: number; delta: unknown }
  | { op: 'corrupt-json'; target: number; how: 'extra-brace' | 'drop-last-char' | 'array' | 'string' }
  | { op: 'insert-error'; at: number; errorType: string; message: string }
  | { op: 'insert-unknown'; at: number; name: string }
  | { op: 'insert-ping'; at: number }
  | { op: 'non-object'; target: number; value: unknown }
  | { op: 'break-type'; target: number; type: unknown }
  | { op: 'break-shape'; target: number; how: number };

/** What the reducer must do with the mutated list. */
export type ExpectedOutcome =
  | { outcome: 'message'; message: Message; unknownEvents: string[] }
  | {
      outcome: 'violation';
      kind: StreamViolationKind;
      eventIndex: number;
      /** The `expected` text of the error, where the mutation fixes it. */
      expected?: string;
      /** For an error event: the body it must carry. */
      body?: ErrorBody;
    };

/** Deltas no block accepts. */
const JUNK_DELTAS: unknown[] = [
  null,
  7,
  'text_delta',
  [],
  {},
  { type: 'text_delta', text: 1 },
  { type: 'input_json_delta', partial_json: null },
  { type: 7, text: 'x' },
];
/** Values of `type` that are not strings (undefined: the field is removed). */
const JUNK_TYPES: unknown[] = [undefined, null, 5, true, {}, ['message_start']];

export const arbEventMutation: fc.Arbitrary<EventMutation> = fc
  .oneof(
    fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ op: fc.constant('drop' as const), target: fc.nat() }),
    fc.record({ op: fc.constant('duplicate' as const), target: fc.nat() }),
    fc.record({ op: fc.constant('reindex' as const), target: fc.nat(), by: fc.nat({ max: 4 }) }),
    fc.record({ op: fc.constant('swap-delta-type' as const), target: fc.nat() }),
    fc.record({
      op: fc.constant('junk-delta' as const),
      target: fc.nat(),
      delta: fc.constantFrom(...JUNK_DELTAS),
    }),
    fc.record({
      op: fc.constant('corrupt-json' as const),
      target: fc.nat(),
      how: fc.constantFrom(
        'extra-brace' as const,
        'drop-last-char' as const,
        'array' as const,
        'string' as const,
      ),
    }),
    fc.record({
      op: fc.constant('insert-error' as const),
      at: fc.nat(),
      errorType: fc.constantFrom('overloaded_error', 'api_error', 'x'),
      message: fc.string({ maxLength: 10 }),
    }),
    fc.record({
      op: fc.constant('insert-unknown' as const),
      at: fc.nat(),
      name: fc.string({ maxLength: 8 }),
    }),
    fc.record({ op: fc.constant('insert-ping' as const), at: fc.nat() }),
    fc.record({
      op: fc.constant('non-object' as const),
      target: fc.nat(),
      value: fc.constantFrom<unknown>(null, 0, 'message_start', true, [], [{ type: 'ping' }]),
    }),
    fc.record({
      op: fc.constant('break-type' as const),
      target: fc.nat(),
      type: fc.constantFrom(...JUNK_TYPES),
    }),
    fc.record({ op: fc.constant('break-shape' as const), target: fc.nat(), how: fc.nat() }),
  )
  // fc.record builds null-prototype objects; plain ones print and compare like JSON.
  .map((m) => ({ ...m }));

/** What the reducer expects next in each state, as its errors say it. */
const AWAITING_BLOCK = 'content_block_start or message_delta';
const IN_BLOCK = 'content_block_delta or content_block_stop';

type Ev = Record<string, unknown>;

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

function positionsOf(events: readonly Ev[], test: (e: Ev) => boolean): number[] {
  return events.flatMap((e, i) => (test(e) ? [i] : []));
}

function nextNonPing(events: readonly unknown[], from: number): number {
  let i = from;
  while ((events[i] as Ev | undefined)?.type === 'ping') i++;
  return i;
}

function insertAt(events: readonly unknown[], at: number, ...inserted: unknown[]): unknown[] {
  return [...events.slice(0, at), ...inserted, ...events.slice(at)];
}

function replaceAt(events: readonly unknown[], at: number, value: unknown): unknown[] {
  return events.map((e, i) => (i === at ? value : e));
}

const violation = (
  kind: StreamViolationKind,
  eventIndex: number,
  expected?: string,
): ExpectedOutcome & { outcome: 'violation' } =>
  expected === undefined
    ? { outcome: 'violation', kind, eventIndex }
    : { outcome: 'violation', kind, eventIndex, expected };

/** The message a benign change leaves: text blocks re-read from their deltas. */
function messageOf(events: readonly unknown[], message: Message): Message {
  const content = message.content.map((block, index) => {
    if (block.type !== 'text') return block;
    const text = events
      .map((e) => e as Ev)
      .filter((e) => e.type === 'content_block_delta' && e.index === index)
      .map((e) => (e.delta as { text: string }).text)
      .join('');
    return { ...block, text };
  });
  return { ...message, content };
}

const ok = (events: unknown[], message: Message, unknownEvents: string[] = []) => ({
  events,
  expected: { outcome: 'message' as const, message: messageOf(events, message), unknownEvents },
});

/** Apply `m` to the valid `events` of `message`; pure. */
export function applyEventMutation(
  events: readonly StreamEvent[],
  message: Message,
  m: EventMutation,
): { events: unknown[]; expected: ExpectedOutcome } {
  const evs = events as readonly Ev[];
  const insertPoint = (at: number) => at % (evs.length + 1);
  const truncate = (at: number) => {
    const n = at % evs.length;
    return { events: evs.slice(0, n), expected: violation('truncated', n) };
  };
  switch (m.op) {
    case 'truncate':
      return truncate(m.at);
    case 'drop': {
      const at = pick(
        positionsOf(evs, (e) => e.type !== 'ping' && e.type !== 'content_block_delta'),
        m.target,
      );
      if (at === undefined) return truncate(m.target);
      const type = evs[at]?.type;
      const out = evs.filter((_, i) => i !== at);
      if (type === 'message_stop') return { events: out, expected: violation('truncated', out.length) };
      const expected =
        type === 'message_start'
          ? 'message_start'
          : type === 'content_block_stop'
            ? IN_BLOCK
            : AWAITING_BLOCK;
      return { events: out, expected: violation('order', nextNonPing(out, at), expected) };
    }
    case 'duplicate': {
      const textBlocks = new Set(message.content.flatMap((b, i) => (b.type === 'text' ? [i] : [])));
      const at = pick(
        positionsOf(
          evs,
          (e) => e.type !== 'ping' && (e.type !== 'content_block_delta' || textBlocks.has(e.index as number)),
        ),
        m.target,
      );
      if (at === undefined) return truncate(m.target);
      const out = insertAt(evs, at + 1, evs[at]);
      const type = evs[at]?.type;
      if (type === 'content_block_delta') return ok(out, message);
      const expected =
        type === 'content_block_start'
          ? IN_BLOCK
          : type === 'message_delta'
            ? 'message_stop'
            : type === 'message_stop'
              ? 'end of stream'
              : AWAITING_BLOCK;
      return { events: out, expected: violation('order', at + 1, expected) };
    }
    case 'reindex': {
      const at = pick(
        positionsOf(evs, (e) => typeof e.type === 'string' && e.type.startsWith('content_block_')),
        m.target,
      );
      if (at === undefined) return truncate(m.target);
      const e = evs[at] as Ev;
      const index = e.index as number;
      const expected =
        e.type === 'content_block_start'
          ? `content_block_start at index ${index}`
          : `${String(e.type)} for index ${index}`;
      return {
        events: replaceAt(evs, at, { ...e, index: index + 1 + m.by }),
        expected: violation('index', at, expected),
      };
    }
    case 'swap-delta-type':
    case 'junk-delta': {
      const at = pick(
        positionsOf(evs, (e) => e.type === 'content_block_delta'),
        m.target,
      );
      if (at === undefined) return truncate(m.target);
      const e = evs[at] as Ev;
      const delta = e.delta as { type: string; text?: string; partial_json?: string };
      const swapped =
        delta.type === 'text_delta'
          ? { type: 'input_json_delta', partial_json: delta.text }
          : { type: 'text_delta', text: delta.partial_json };
      const expected =
        delta.type === 'text_delta'
          ? 'text_delta {text: string} for a text block'
          : 'input_json_delta {partial_json: string} for a tool_use block';
      return {
        events: replaceAt(evs, at, { ...e, delta: m.op === 'swap-delta-type' ? swapped : m.delta }),
        expected: violation('delta-type', at, expected),
      };
    }
    case 'corrupt-json': {
      const tools = message.content.flatMap((b, i) => (b.type === 'tool_use' ? [i] : []));
      const index = pick(tools, m.target);
      if (index === undefined) return truncate(m.target);
      const deltas = positionsOf(evs, (e) => e.type === 'content_block_delta' && e.index === index);
      const stop = evs.findIndex((e) => e.type === 'content_block_stop' && e.index === index);
      const last = deltas.at(-1) ?? stop;
      const fragments = deltas.map((i) => ((evs[i] as Ev).delta as { partial_json: string }).partial_json);
      // A JSON object's text is at least "{}", so none of these leaves it empty ("no input").
      const replaced = deltas.map((_, k): string => {
        const fragment = fragments[k] ?? '';
        if (m.how === 'array' || m.how === 'string')
          return k === 0 ? (m.how === 'array' ? '[1]' : '"s"') : '';
        if (deltas[k] !== last) return fragment;
        return m.how === 'extra-brace' ? `${fragment}}` : fragment.slice(0, -1);
      });
      const out = evs.map((e, i) => {
        const k = deltas.indexOf(i);
        return k === -1 ? e : { ...e, delta: { type: 'input_json_delta', partial_json: replaced[k] } };
      });
      const expected =
        m.how === 'array' || m.how === 'string'
          ? `a JSON object as input of index ${index}`
          : `the partial_json fragments of index ${index} to form JSON`;
      return { events: out, expected: violation('json', stop, expected) };
    }
    case 'insert-error': {
      const at = insertPoint(m.at);
      const body: ErrorBody = { type: 'error', error: { type: m.errorType, message: m.message } };
      return {
        events: insertAt(evs, at, body),
        expected: { ...violation('error-event', at, 'no error event'), body },
      };
    }
    case 'insert-unknown': {
      const name = `x_${m.name}`;
      return ok(insertAt(evs, insertPoint(m.at), { type: name, index: 0 }), message, [name]);
    }
    case 'insert-ping':
      return ok(insertAt(evs, insertPoint(m.at), { type: 'ping' }), message);
    case 'non-object': {
      const at =
        pick(
          positionsOf(evs, () => true),
          m.target,
        ) ?? 0;
      return { events: replaceAt(evs, at, m.value), expected: violation('shape', at, 'a JSON object') };
    }
    case 'break-type': {
      const at =
        pick(
          positionsOf(evs, () => true),
          m.target,
        ) ?? 0;
      const { type: _, ...rest } = evs[at] as Ev;
      const broken = m.type === undefined ? rest : { ...rest, type: m.type };
      return {
        events: replaceAt(evs, at, broken),
        expected: violation('shape', at, 'an event with a string type'),
      };
    }
    case 'break-shape': {
      const at = pick(
        positionsOf(
          evs,
          (e) => e.type === 'message_start' || e.type === 'content_block_start' || e.type === 'message_delta',
        ),
        m.target,
      );
      if (at === undefined) return truncate(m.target);
      return {
        events: replaceAt(evs, at, breakShape(evs[at] as Ev, m.how)),
        expected: violation('shape', at),
      };
    }
  }
}

/** A copy of a message_start, content_block_start or message_delta with one documented field broken. */
function breakShape(e: Ev, how: number): Ev {
  if (e.type === 'message_start') {
    const message = e.message as Ev;
    const { id: _, ...noId } = message;
    const variants: Ev[] = [
      { ...e, message: noId },
      { ...e, message: { ...message, usage: { input_tokens: -1, output_tokens: 0 } } },
      { ...e, message: { ...message, role: 'user' } },
      { ...e, message: { ...message, stop_reason: 'end_turn' } },
      { ...e, message: null },
    ];
    return variants[how % variants.length] as Ev;
  }
  if (e.type === 'content_block_start') {
    const variants: Ev[] = [
      { ...e, content_block: { type: 42 } },
      { ...e, content_block: { type: 'tool_use', id: 'toolu_x', name: 'bash', input: [] } },
      { ...e, content_block: { type: 'text' } },
      { ...e, content_block: 'text' },
    ];
    return variants[how % variants.length] as Ev;
  }
  const variants: Ev[] = [
    { ...e, delta: { stop_reason: 42, stop_sequence: null } },
    { ...e, delta: null },
    { type: e.type, delta: e.delta },
    { ...e, usage: { output_tokens: 1.5 } },
  ];
  return variants[how % variants.length] as Ev;
}
