import { type Check, type CheckEnv, CheckFailure, NotExercised, TargetGone } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import {
  type InvalidCase,
  invalidExamples,
  invalidRequestBody,
  MALFORMED_RULES,
  SEMANTIC_RULES,
  validRequestBody,
} from '../arbitraries.js';
import type { MessagesServiceCtx } from '../context.js';
import { errorEnding } from '../frame-rules.js';
import { sendBuffered, sendStreamed } from '../http.js';
import { type BufferedReply, describeReply } from '../replies.js';
import {
  bufferedMessage,
  errorBodyViolations,
  errorTypeOf,
  stopReasonViolations,
  streamedMessage,
} from '../reply-rules.js';
import { failOn, violation, within } from '../violations.js';
import { httpRuns, PROPERTY_BUDGET_MS } from './common.js';

/**
 * Error types by which the real API says the request was at fault: a stream that ends with one
 * refused a valid request, as a 400 or 404 would have. Any other (api_error, overloaded_error,
 * rate_limit_error, a type the real API may add) is the service's not finishing, which the
 * real API does within a stream.
 */
const REQUEST_FAULTS = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
]);

/**
 * The verdict on a valid request's stream. One whose end is no rule's (the service ended it
 * with an error event, as the real API may; wirecheck stopped reading at its own limit)
 * cannot show the conformant message it owes: the request is sent once more when an error
 * event ended it (a limit of wirecheck's would only be met again), and a second such end
 * leaves the check not exercised, as a busy service does.
 */
async function streamedVerdict(
  ctx: MessagesServiceCtx,
  env: CheckEnv,
  raw: string,
): Promise<ReturnType<typeof streamedMessage>> {
  const send = () => sendStreamed(ctx.client, raw, { signal: env.signal });
  const reply = await send();
  const first = streamedMessage(reply);
  if (first.unjudged === undefined) return first;
  const ending = errorEnding(reply.frames);
  if (ending !== undefined && REQUEST_FAULTS.has(ending.type)) {
    return {
      message: undefined,
      violations: [
        violation(
          `frame ${ending.frameIndex + 1}`,
          'a message (the request is valid)',
          `an error event ${ending.type}: ${ending.message}`,
          ending.frameIndex,
        ),
      ],
    };
  }
  if (ending === undefined) {
    throw new NotExercised(
      `the stream answering a valid request was ${first.unjudged}: its end could not be judged`,
    );
  }
  const again = streamedMessage(await send());
  if (again.unjudged === undefined) return again;
  throw new NotExercised(
    `the stream answering a valid request was ${first.unjudged}, and sent again, ${again.unjudged}: no message to judge (the spec does not show an error event within a stream; the real API sends one when it cannot finish)`,
  );
}

function isClientError(reply: BufferedReply): boolean {
  return reply.status >= 400 && reply.status < 500;
}

type InvalidSet = typeof MALFORMED_RULES;
type Judge = (c: InvalidCase, reply: BufferedReply) => void;

/**
 * Judge the reply to invalid bodies of the given sets: first one example per rule (so every
 * label is tried whatever the runs), then generated cases as a labelled property per set,
 * so every failing rule is reported and not only the first. Equal bodies are sent once per
 * run (`sendOnce`), so the checks that judge the same set share their requests.
 */
async function forEveryInvalidBody(
  ctx: MessagesServiceCtx,
  env: CheckEnv,
  sets: readonly InvalidSet[],
  judgeReply: Judge,
  { judgesRefusalsOnly = false }: { judgesRefusalsOnly?: boolean } = {},
): Promise<void> {
  let refusals = 0;
  const judge: Judge = (c, reply) => {
    if (isClientError(reply)) refusals += 1;
    judgeReply(c, reply);
  };
  const failures: Array<{ label: string; error: CheckFailure }> = [];
  // A body left unjudged (the service busy, a reply wirecheck's budget cut) ends the sending,
  // but does not hide the faults found before it: it is the outcome only when there are none.
  let unjudged: NotExercised | undefined;
  for (const example of sets.flatMap((set) => invalidExamples(ctx.model, set))) {
    try {
      judge(example, await ctx.sendOnce(example.raw));
    } catch (e) {
      if (e instanceof NotExercised) {
        unjudged = e;
        break;
      }
      if (!(e instanceof CheckFailure) || e instanceof TargetGone) throw e;
      failures.push({ label: example.label, error: e });
    }
  }
  if (failures.length > 0) throw combined(failures);
  const found: CheckFailure[] = [];
  for (const set of unjudged === undefined ? sets : []) {
    try {
      await checkProperty(
        env,
        invalidRequestBody(ctx.model, set),
        async (c) => judge(c, await ctx.sendOnce(c.raw)),
        { runs: httpRuns(ctx, env), labelOf: (c) => c.label },
      );
    } catch (e) {
      if (e instanceof NotExercised) {
        unjudged = e;
        break;
      }
      if (!(e instanceof CheckFailure) || e instanceof TargetGone) throw e;
      found.push(e);
    }
  }
  if (found.length === 0 && unjudged !== undefined) throw unjudged;
  const [first, ...more] = found;
  if (first === undefined) {
    // A judge of refusals that saw none judged nothing: the service served every invalid body.
    if (judgesRefusalsOnly && refusals === 0) {
      throw new NotExercised(
        'the service refused none of the invalid bodies, so no refusal could be judged (see messages-service.requests.invalid-rejected)',
      );
    }
    return;
  }
  // One failing set keeps its counterexample (saved with --report-dir); two are joined.
  if (more.length === 0) throw first;
  throw new CheckFailure(found.map((f) => f.message).join('; '), first.expected, first.actual);
}

/** One failure naming every failing rule, each with what arrived. */
function combined(failures: Array<{ label: string; error: CheckFailure }>): CheckFailure {
  const first = failures[0]!.error;
  if (failures.length === 1) return first;
  return new CheckFailure(
    `${failures.length} rules fail: ${failures.map((f) => `[${f.label}] ${f.error.message}`).join('; ')}`,
    first.expected,
    failures.map((f) => `[${f.label}] ${f.error.actual ?? ''}`).join('; '),
  );
}

function refused(c: InvalidCase, reply: BufferedReply): void {
  if (!isClientError(reply)) {
    throw new CheckFailure(`${c.detail}: not refused as a client error`, '4xx', describeReply(reply));
  }
}

function errorBody(c: InvalidCase, reply: BufferedReply): void {
  if (isClientError(reply)) failOn(within(c.detail, errorBodyViolations(reply)), 'error body');
}

function realApiStatus(c: InvalidCase, reply: BufferedReply): void {
  if (!isClientError(reply)) return;
  const type = errorTypeOf(reply);
  if (reply.status !== 400 || type !== 'invalid_request_error') {
    throw new CheckFailure(
      `${c.detail}: refused, but not as the real API does`,
      '400 invalid_request_error',
      describeReply(reply),
    );
  }
}

export const bodyChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.requests.valid-accepted',
    clause: 'Resources: Message request body',
    description:
      'Valid requests (unicode conversations, tool rounds with one or two tool_result blocks, tools, buffered or streamed) get HTTP 200 and a conformant message.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Resources: Message request body, Turn, Content blocks): a request with every field of the table, well typed, in a valid conversation, is answered with HTTP 200 and a conformant message. Every messages service. A stream the service ends with an `error` event (the spec does not show one; the real API sends one when it cannot finish) is asked once more, and when the second ends so too the check is not exercised, as for a busy service; so is a stream wirecheck stopped reading at a limit of its own (frames or bytes of one reply).',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await checkProperty(
        env,
        validRequestBody(ctx.model),
        async ({ body }) => {
          const raw = JSON.stringify(body);
          const { message, violations } = body.stream
            ? await streamedVerdict(ctx, env, raw)
            : bufferedMessage(await sendBuffered(ctx.client, raw, { signal: env.signal }));
          const label = body.stream ? 'streamed reply' : 'buffered reply';
          failOn(
            within(label, [...violations, ...(message ? stopReasonViolations(message) : [])]),
            'a valid request must get a conformant reply',
          );
        },
        { runs: httpRuns(ctx, env) },
      );
    },
  },
  {
    id: 'messages-service.errors.invalid-rejected',
    clause: 'Resources: Message request body; Turn; Content blocks (the field table)',
    description:
      'Requests that break the field table (a required field missing or of the wrong type, a role or block outside the table, a body that is not a JSON object) are refused with a 4xx; every failing rule is reported.',
    level: 'must',
    basis: 'spec',
    rule: "The spec's field table (Message request body, Turn, Content blocks): model, max_tokens and messages are required, each of a given type, roles are user or assistant. Every messages service refuses a request that breaks the table (a client error, 4xx) instead of serving it or failing with 5xx.",
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, [MALFORMED_RULES], refused);
    },
  },
  {
    id: 'messages-service.errors.semantic-rejected',
    clause:
      'Resources: Content blocks (direction; tool_use_id equals the id of the tool_use answered); rejection not shown in the spec',
    description:
      'Well-typed but meaningless requests (a tool_result in an assistant turn, a tool_use in a user turn, a tool_result answering no tool_use, no turn, max_tokens below 1) are refused with a 4xx, as on the real API.',
    level: 'should',
    basis: 'real-api',
    rule: 'The spec says which direction each block goes and that a tool_result answers a tool_use, but not what a service does with a request that breaks this (statuses are "not shown"). The real API refuses such a request with 400; a service that serves it or crashes on it gets a warning.',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, [SEMANTIC_RULES], refused);
    },
  },
  {
    id: 'messages-service.errors.error-body',
    clause: 'Errors: error response body "not shown" (the real API error body)',
    description:
      'A refused request gets the error body {"type":"error","error":{"type","message"}}; the failure shows the body received.',
    level: 'should',
    basis: 'real-api',
    rule: 'Not in the spec (the error body is "not shown"): the real API\'s error body is {"type": "error", "error": {"type", "message"}}, which its SDKs parse. A warning.',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, [MALFORMED_RULES, SEMANTIC_RULES], errorBody, {
        judgesRefusalsOnly: true,
      });
    },
  },
  {
    id: 'messages-service.errors.invalid-400',
    clause:
      'Resources: Message request body (status not shown in the spec; the real API: 400 invalid_request_error)',
    description:
      'A refused invalid request gets 400 with error type invalid_request_error, as on the real API.',
    level: 'should',
    basis: 'real-api',
    rule: 'Not in the spec (statuses are "not shown"): the real API refuses an invalid request with 400 and error type invalid_request_error. A warning.',
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      await forEveryInvalidBody(ctx, env, [MALFORMED_RULES, SEMANTIC_RULES], realApiStatus, {
        judgesRefusalsOnly: true,
      });
    },
  },
];
