import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  Message,
  STREAM_EVENT_TYPES,
  StreamAccumulator,
  StreamErrorEvent,
  StreamProtocolError,
  type StreamViolationKind,
} from '../../protocol/messages/index.js';
import { arbStreamCase, serializeStreamCase } from '../../suites/arbitraries/messages.js';
import {
  applyEventMutation,
  arbEventMutation,
  type EventMutation,
  type ExpectedOutcome,
} from '../mutations/events.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/** One reducer input: events, and what must come of them when the contract fixes it. */
export type ReducerCase =
  | { origin: 'junk'; events: unknown[] }
  | { origin: 'mutated stream'; mutation: EventMutation; events: unknown[]; expected: ExpectedOutcome };

const VIOLATION_KINDS: readonly StreamViolationKind[] = [
  'order',
  'index',
  'delta-type',
  'json',
  'shape',
  'truncated',
  'error-event',
];

const junkValue = fc.jsonValue({ maxDepth: 2 });
const container = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

/** Events that look like stream events, field by field valid or not. */
const arbEventLike = fc.record(
  {
    type: fc.oneof(
      { arbitrary: fc.constantFrom(...STREAM_EVENT_TYPES), weight: 6 },
      { arbitrary: fc.string({ maxLength: 8 }), weight: 1 },
      { arbitrary: junkValue, weight: 1 },
    ),
    index: fc.oneof({ arbitrary: fc.nat({ max: 3 }), weight: 4 }, { arbitrary: junkValue, weight: 1 }),
    delta: fc.oneof(
      fc.record(
        {
          type: fc.constantFrom('text_delta', 'input_json_delta', 'thinking_delta'),
          text: fc.oneof(fc.string({ maxLength: 6 }), junkValue),
          partial_json: fc.oneof(fc.constantFrom('{', '}', '{"a":1}', '[]', '"x"', '', '{"a":'), junkValue),
          stop_reason: fc.oneof(fc.constantFrom('end_turn', 'tool_use', 'paused'), junkValue),
          stop_sequence: fc.oneof(fc.constant(null), junkValue),
        },
        { requiredKeys: [], noNullPrototype: true },
      ),
      junkValue,
    ),
    content_block: fc.oneof(
      fc.constant({ type: 'text', text: '' }),
      fc.constant({ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }),
      junkValue,
    ),
    message: fc.oneof(fc.constant(container), junkValue),
    usage: fc.oneof(fc.record({ output_tokens: fc.nat({ max: 9 }) }, { noNullPrototype: true }), junkValue),
    error: fc.oneof(fc.constant({ type: 'api_error', message: 'boom' }), junkValue),
  },
  { requiredKeys: [], noNullPrototype: true },
);

const arbJunkEvent = fc.oneof({ arbitrary: arbEventLike, weight: 4 }, { arbitrary: junkValue, weight: 1 });

const arbJunkCase: fc.Arbitrary<ReducerCase> = fc
  .oneof(
    fc.array(arbJunkEvent, { maxLength: 14 }),
    // A valid start, junk in the middle, the valid rest: reaches deep states.
    fc
      .tuple(
        arbStreamCase({ maxBlocks: 2 }),
        fc.nat(),
        fc.nat(),
        fc.array(arbJunkEvent, { minLength: 1, maxLength: 4 }),
      )
      .map(([c, from, to, junk]) => {
        const { events } = serializeStreamCase(c);
        const a = from % (events.length + 1);
        const b = a + (to % (events.length + 1 - a));
        return [...events.slice(0, a), ...junk, ...events.slice(b)];
      }),
  )
  .map((events) => ({ origin: 'junk' as const, events }));

const arbMutatedCase: fc.Arbitrary<ReducerCase> = fc
  .tuple(arbStreamCase({ maxBlocks: 3 }), arbEventMutation)
  .map(([c, mutation]) => {
    const { events, expected } = applyEventMutation(serializeStreamCase(c).events, c.message, mutation);
    return { origin: 'mutated stream' as const, mutation, events, expected };
  });

type Outcome =
  | { outcome: 'message'; message: Message; unknownEvents: string[] }
  | { outcome: 'violation'; error: StreamProtocolError };

/** Reduce the events; anything thrown but a well-formed StreamProtocolError breaks the contract. */
function reduce(events: readonly unknown[]): Outcome {
  const acc = new StreamAccumulator();
  let at = 0;
  try {
    for (; at < events.length; at++) acc.push(events[at]);
    const message = acc.finish();
    return { outcome: 'message', message, unknownEvents: [...acc.unknownEvents] };
  } catch (e) {
    if (!(e instanceof StreamProtocolError)) {
      throw new FuzzViolation(
        `the reducer threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)} instead of a StreamProtocolError`,
      );
    }
    if (!VIOLATION_KINDS.includes(e.kind)) throw new FuzzViolation(`undocumented violation kind ${e.kind}`);
    if (e.eventIndex !== at) {
      throw new FuzzViolation(
        `${e.kind} reported at event ${e.eventIndex}, but it was thrown at event ${at}`,
      );
    }
    if (e.message !== `${e.kind} at event ${e.eventIndex}: expected ${e.expected}, got ${e.actual}`) {
      throw new FuzzViolation(`malformed error message: ${e.message}`);
    }
    return { outcome: 'violation', error: e };
  }
}

function show(outcome: Outcome | ExpectedOutcome): string {
  if (outcome.outcome === 'message') return `the message ${fc.stringify(outcome.message).slice(0, 400)}`;
  if ('error' in outcome) return outcome.error.message;
  return `${outcome.kind} at event ${outcome.eventIndex}${outcome.expected ? ` (expected ${outcome.expected})` : ''}`;
}

function matches(actual: Outcome, expected: ExpectedOutcome): boolean {
  if (actual.outcome === 'message' || expected.outcome === 'message') {
    return (
      actual.outcome === 'message' &&
      expected.outcome === 'message' &&
      isDeepStrictEqual(actual.message, expected.message) &&
      isDeepStrictEqual(actual.unknownEvents, expected.unknownEvents)
    );
  }
  const e = actual.error;
  return (
    e.kind === expected.kind &&
    e.eventIndex === expected.eventIndex &&
    (expected.expected === undefined || e.expected === expected.expected) &&
    (expected.body === undefined ||
      (e instanceof StreamErrorEvent && isDeepStrictEqual(e.body, expected.body)))
  );
}

export const streamReducerSurface: FuzzSurface<ReducerCase> = {
  name: 'stream-reducer',
  description:
    'message stream reducer on junk event lists and mutated valid streams: throws only well-formed StreamProtocolErrors at the offending event, ends each mutated stream in its documented outcome, returns only valid messages',
  open: () => ({
    arbitrary: fc.oneof({ arbitrary: arbJunkCase, weight: 2 }, { arbitrary: arbMutatedCase, weight: 3 }),
    check(c) {
      const actual = reduce(c.events);
      if (actual.outcome === 'message' && !Message.safeParse(actual.message).success) {
        throw new FuzzViolation(
          `the reducer returned a message of the wrong shape: ${fc.stringify(actual.message)}`,
        );
      }
      if (c.origin === 'mutated stream' && !matches(actual, c.expected)) {
        throw new FuzzViolation(`after ${c.mutation.op}: expected ${show(c.expected)}, got ${show(actual)}`);
      }
    },
  }),
};
