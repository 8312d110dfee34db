import { type Check, type CheckEnv, CheckFailure, NotExercised } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import type { FaultPlan } from '../../../mocks/messages/index.js';
import { arbStreamedMessageCase } from '../arbitraries.js';
import type { MessagesClientCtx } from '../context.js';
import { frameCountOf, gaps, MIXED_MESSAGE, oneCodePointPerDelta } from '../messages.js';
import type { ReadCutPlan } from '../read-cuts.js';
import {
  CASE_BUDGET_MS,
  expectStreamedMessage,
  expectStreamVariation,
  PROPERTY_BUDGET_MS,
  SHRINK_RUNS,
} from './common.js';

const MIXED_FRAMES = frameCountOf(MIXED_MESSAGE, []);
const SMALL_WRITES: FaultPlan['chunking'] = { mode: 'random', minBytes: 1, maxBytes: 7 };
/** Reads cut inside every character and CRLF, and at random in between. */
function everyHardCut(seed: number): ReadCutPlan {
  return { insideCharacters: true, random: { seed, meanGapBytes: 24 } };
}

/** The SSE syntax stream.sse-syntax serves at once, each as the mock's fault that adds it. */
/** The line endings SSE reads, one client run each (stream.line-endings). */
const LINE_ENDINGS: readonly (readonly [string, FaultPlan])[] = [
  ['LF line endings', { lineEnding: 'lf' }],
  ['CRLF line endings cut between CR and LF', { lineEnding: 'crlf', splitCrLf: true }],
  ['lone CR line endings', { lineEnding: 'cr' }],
];

const SSE_SYNTAX: readonly (readonly [string, FaultPlan])[] = [
  ['a byte order mark', { bom: true }],
  ['id: lines', { idLines: true }],
  ['data over several data: lines', { multiLineData: true }],
  ['an unknown field line', { malformed: [{ atFrame: 1, kind: 'garbage-line' }] }],
];

/** What serving one piece alone showed: `unjudged`, the run judged nothing; `untried`, time ran short. */
export type PieceOutcome = 'tripped' | 'handled' | 'unjudged' | 'untried';

/** What serving each piece alone showed, as the warning says it. */
export function culpritsNote(outcomes: readonly (readonly [string, PieceOutcome])[]): string {
  const named = (outcome: PieceOutcome) => outcomes.filter(([, o]) => o === outcome).map(([name]) => name);
  const tripped = named('tripped');
  const handled = named('handled');
  const unjudged = named('unjudged');
  const untried = named('untried');
  const found =
    tripped.length > 0
      ? `the client trips on ${tripped.join(', ')}`
      : handled.length === outcomes.length
        ? 'each was handled: only together do they trip the client'
        : handled.length > 0
          ? `${handled.join(', ')} handled`
          : 'none was seen to trip the client';
  const unseen = unjudged.length === 0 ? '' : `; ${unjudged.join(', ')} alone judged nothing`;
  const late = untried.length === 0 ? '' : `; ${untried.join(', ')} not served alone, for want of time`;
  return `served one at a time, ${found}${unseen}${late}`;
}

/**
 * How long into the check the last piece may still be served alone: a client whose runs are
 * slow keeps the warning it earned, instead of running out the check's budget narrowing it down.
 */
const NARROWING_WINDOW_MS = CASE_BUDGET_MS / 3;

/**
 * `failure` (of the stream with every piece of SSE syntax at once, in a check started at
 * `started`) with what the client trips on when each piece comes alone: a client author learns
 * what to fix, not only that something broke.
 */
async function withSyntaxCulprits(
  ctx: MessagesClientCtx,
  env: CheckEnv,
  failure: CheckFailure,
  readCuts: ReadCutPlan,
  started: number,
): Promise<CheckFailure> {
  const outcomes: [string, PieceOutcome][] = [];
  for (const [name, faults] of SSE_SYNTAX) {
    if (performance.now() - started > NARROWING_WINDOW_MS) {
      outcomes.push([name, 'untried']);
      continue;
    }
    try {
      await expectStreamedMessage(ctx, env, MIXED_MESSAGE, { faults, readCuts }, `a stream with ${name}`);
      outcomes.push([name, 'handled']);
    } catch (error) {
      if (error instanceof CheckFailure) outcomes.push([name, 'tripped']);
      else if (error instanceof NotExercised) outcomes.push([name, 'unjudged']);
      else throw error;
    }
  }
  return new CheckFailure(
    `${failure.message} (${culpritsNote(outcomes)})`,
    failure.expected,
    failure.actual,
    failure.evidence,
  );
}

export const streamChecks: Check<MessagesClientCtx>[] = [
  {
    id: 'messages-client.stream.final-message',
    clause: 'What the service does 2; Events rules 1-3',
    description:
      'Generated streams (multi-byte text, tool input JSON cut anywhere, pings, any line ending, reads cut anywhere) are printed as exactly the message they carry.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (What the service does 2; Events rules 1-3): a stream carries the same final message as the buffered reply; a client folds the frames into it, whatever the chunking, line endings and pings. Every messages client prints exactly that message.',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await checkProperty(
        env,
        arbStreamedMessageCase(),
        (c) => expectStreamedMessage(ctx, env, c.message, c, 'generated stream'),
        { runs: ctx.commandRuns(env), maxShrinkRuns: SHRINK_RUNS },
      );
    },
  },
  {
    id: 'messages-client.stream.utf8-split',
    clause: 'Events: each frame is UTF-8 text',
    description: 'A multi-byte UTF-8 character cut across two reads is decoded whole.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Events): frames are UTF-8 text. Every messages client decodes a character whose bytes arrive in two reads as one character.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectStreamVariation(
        ctx,
        env,
        MIXED_MESSAGE,
        { faults: { splitUtf8: true }, readCuts: { insideCharacters: true } },
        'every multi-byte character cut across two reads',
      );
    },
  },
  {
    id: 'messages-client.stream.line-endings',
    clause: 'Events: frames are separated by two line breaks (SSE: CRLF, LF or CR)',
    description: 'Streams with LF, CRLF (cut between CR and LF) and lone CR line endings are all read.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'The spec says frames are separated by two line breaks and defers to SSE, whose format makes CRLF, LF and CR all line breaks (a CRLF may be cut between its CR and LF). Every messages client reads all three.',
    // One case's budget per dialect: each run may take the start allowed before it reaches the mock.
    timeoutMs: LINE_ENDINGS.length * CASE_BUDGET_MS,
    async run(ctx, env) {
      // A dialect not judged (the client gets the plain stream wrong alike) leaves the others to judge.
      let unjudged: NotExercised | undefined;
      for (const [what, faults] of LINE_ENDINGS) {
        try {
          await expectStreamVariation(
            ctx,
            env,
            MIXED_MESSAGE,
            {
              faults: { ...faults, chunking: SMALL_WRITES, seed: env.seed },
              readCuts: everyHardCut(env.seed),
            },
            what,
          );
        } catch (error) {
          if (!(error instanceof NotExercised)) throw error;
          unjudged ??= error;
        }
      }
      if (unjudged !== undefined) throw unjudged;
    },
  },
  {
    id: 'messages-client.stream.tool-input-fragments',
    clause: 'Events rule 3',
    description:
      'Tool input sent one code point per input_json_delta is concatenated and parsed once, at content_block_stop.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Events rule 3): tool input arrives as partial_json fragments that are not JSON on their own; a consumer concatenates them and parses once, at content_block_stop. Every messages client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectStreamVariation(
        ctx,
        env,
        MIXED_MESSAGE,
        { splits: oneCodePointPerDelta(MIXED_MESSAGE) },
        'every block streamed one code point per delta',
      );
    },
  },
  {
    id: 'messages-client.stream.pings',
    clause: 'Events: ping, optional keep-alive, may occur anywhere',
    description: 'Ping frames between any two events (several in a row too) are ignored.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Events: ping): pings are optional keep-alives that may occur anywhere. Every messages client ignores them.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const splits = [
        [5, 9],
        [3, 17],
      ];
      const after = gaps(1, frameCountOf(MIXED_MESSAGE, splits) - 1);
      await expectStreamVariation(
        ctx,
        env,
        MIXED_MESSAGE,
        { splits, faults: { pings: { at: [...after, 1, 2, 2] } }, readCuts: everyHardCut(env.seed) },
        'a ping before every event after message_start',
      );
    },
  },
  {
    id: 'messages-client.stream.ping-before-message-start',
    clause: 'Events: ping may occur anywhere (States: the first frame is message_start)',
    description: 'A ping before message_start is ignored too.',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec says both that a ping may occur anywhere and that the first frame is message_start; a ping before message_start is the one place the two disagree, so a client that refuses it only gets a warning.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectStreamVariation(
        ctx,
        env,
        MIXED_MESSAGE,
        { faults: { pings: { at: [0] } } },
        'a ping as the first frame',
      );
    },
  },
  {
    id: 'messages-client.stream.comments',
    clause: 'What the service does 2 (SSE: a line starting with a colon is a comment)',
    description: 'Comment lines anywhere in the stream, before the first event too, are ignored.',
    level: 'must',
    basis: 'protocol-must',
    rule: "The spec defers to SSE for the frame syntax, and SSE makes a line starting with a colon a comment that readers ignore (the spec's tool-server keep-alives are such lines). Every messages client ignores comments.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectStreamVariation(
        ctx,
        env,
        MIXED_MESSAGE,
        { faults: { comments: { at: gaps(0, MIXED_FRAMES) } }, readCuts: everyHardCut(env.seed) },
        'a comment in every gap between frames',
      );
    },
  },
  {
    id: 'messages-client.stream.unknown-events',
    clause: 'Events (not in the spec; the real API may add event types, which clients are asked to ignore)',
    description: 'Frames with an event name the spec does not list are ignored.',
    level: 'should',
    basis: 'real-api',
    rule: "Not in the spec's event list: the real API adds event types over time and asks clients to ignore the ones they do not know. A client that fails on one gets a warning.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectStreamVariation(
        ctx,
        env,
        MIXED_MESSAGE,
        { faults: { unknownEvents: { at: gaps(1, MIXED_FRAMES - 1) } } },
        'an unknown event before every event after message_start',
      );
    },
  },
  {
    id: 'messages-client.stream.sse-syntax',
    clause: 'What the service does 2 (SSE syntax beyond the frames the spec shows)',
    description:
      'A byte order mark, id: lines, data split over several data: lines and unknown field lines are handled as SSE says (a client that trips is served each alone, and told which it trips on).',
    level: 'should',
    basis: 'protocol-should',
    rule: 'SSE syntax beyond the frames the spec shows (a byte order mark, id: lines, data over several data: lines, unknown field lines): the SSE format tells readers how to handle each; the real API sends none of them, so a client that trips on one gets a warning.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const started = performance.now();
      const readCuts = everyHardCut(env.seed);
      const faults: FaultPlan = Object.assign({}, ...SSE_SYNTAX.map(([, plan]) => plan));
      try {
        await expectStreamVariation(
          ctx,
          env,
          MIXED_MESSAGE,
          { faults, readCuts },
          'a stream with a BOM, id: lines, multi-line data and an unknown field line',
        );
      } catch (error) {
        // A client that did not run at all has nothing to narrow down.
        if (!(error instanceof CheckFailure) || error.sharedCause !== undefined) throw error;
        throw await withSyntaxCulprits(ctx, env, error, readCuts, started);
      }
    },
  },
];
