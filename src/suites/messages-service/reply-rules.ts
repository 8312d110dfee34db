import { safeParseCut } from '../../protocol/first-bad-element.js';
import {
  BashToolInput,
  ErrorBody,
  Message,
  type Message as MessageT,
  mayCutOutput,
  ReceivedBlock,
  STOP_REASONS,
} from '../../protocol/messages/index.js';
import { zodIssues } from '../../protocol/zod-issues.js';
import {
  cutShort,
  cuttingStopReason,
  describeErrorEnding,
  errorEnding,
  followStream,
  problemViolations,
} from './frame-rules.js';
import { type BufferedReply, describeReply, headerOf, mediaTypeOf, type StreamedReply } from './replies.js';
import { type Violation, violation } from './violations.js';

/** "Resources: Message response": HTTP 200 with the buffered message; a finished reply has a stop reason. */
export function bufferedMessage(reply: BufferedReply): {
  message: MessageT | undefined;
  violations: Violation[];
} {
  if (reply.status !== 200) {
    return { message: undefined, violations: [violation('status', 'HTTP 200', describeReply(reply))] };
  }
  if (reply.jsonError !== undefined) {
    return {
      message: undefined,
      violations: [violation('body', 'a JSON body', `${reply.jsonError}: ${describeReply(reply)}`)],
    };
  }
  const { parsed, note } = safeParseCut(Message, reply.json, 'content', ReceivedBlock, 'block');
  if (!parsed.success) {
    return {
      message: undefined,
      violations: [
        violation(
          'body',
          'a message {id, type: message, role: assistant, model, content: [text|tool_use], stop_reason, stop_sequence, usage: {input_tokens, output_tokens}}',
          `${zodIssues(parsed.error)}${note}`,
        ),
      ],
    };
  }
  if (parsed.data.stop_reason === null) {
    return {
      message: parsed.data,
      violations: [
        violation('stop_reason', `one of ${STOP_REASONS.join(', ')} (the reply is complete)`, 'null'),
      ],
    };
  }
  return { message: parsed.data, violations: [] };
}

/** A buffered JSON body: `application/json` (or a `+json` type, which the official SDK also parses). */
export function bufferedContentTypeViolations(reply: BufferedReply): Violation[] {
  const type = mediaTypeOf(reply.headers);
  if (type === 'application/json' || type?.endsWith('+json')) return [];
  return [violation('content-type', 'application/json', headerOf(reply.headers, 'content-type') ?? 'none')];
}

/** "Endpoints": a stream is HTTP 200 with content type text/event-stream. */
export function streamHeaderViolations(reply: StreamedReply): Violation[] {
  const found: Violation[] = [];
  if (reply.status !== 200) found.push(violation('status', 'HTTP 200', describeReply(reply)));
  if (mediaTypeOf(reply.headers) !== 'text/event-stream') {
    found.push(
      violation('content-type', 'text/event-stream', headerOf(reply.headers, 'content-type') ?? 'none'),
    );
  }
  return found;
}

/**
 * Why a stream's end was not the service's to be judged by, if it was not: the service
 * ended it with an error event (the spec leaves an error event within the stream not shown;
 * the real API sends one), or wirecheck stopped reading at a limit of its own first.
 */
export function unseenEnd(reply: StreamedReply): string | undefined {
  const ending = errorEnding(reply.frames);
  if (ending !== undefined) return describeErrorEnding(reply.frames, ending);
  if (reply.cutByWirecheck === undefined) return undefined;
  return `cut by wirecheck after ${reply.frames.length} frames, before the service ended it (${reply.cutByWirecheck})`;
}

/**
 * The message a stream reduces to, with what kept it from reducing (status and content
 * type are judged elsewhere). A tool input cut mid-JSON by its stop reason (max_tokens,
 * refusal...) is no violation: the stream then has no complete message to judge, but broke no rule.
 * Nor is a stream whose end is no rule's (`unseenEnd`): `unjudged` then says why no message came,
 * while a fault seen before that end still is one.
 */
export function streamedMessage(reply: StreamedReply): {
  message: MessageT | undefined;
  violations: Violation[];
  unjudged?: string;
} {
  if (reply.status !== 200) {
    return { message: undefined, violations: [violation('status', 'HTTP 200', describeReply(reply))] };
  }
  const followed = followStream(reply.frames);
  const { problem } = followed;
  if (problem?.kind === 'json' && cuttingStopReason(reply.frames) !== undefined) {
    return { message: undefined, violations: [] };
  }
  const ending = errorEnding(reply.frames);
  const endedByError = problem?.kind === 'error-event' && problem.frameIndex === ending?.frameIndex;
  if (endedByError || cutShort(problem, reply.cutByWirecheck)) {
    return { message: undefined, violations: [], unjudged: unseenEnd(reply) };
  }
  return {
    message: followed.message,
    violations: problemViolations(reply.frames, problem, reply.readError),
  };
}

/**
 * "What the service does 3": a reply holding a tool_use block ends with stop reason
 * tool_use, and only such a reply does. A reply cut by max_tokens may hold a tool_use
 * block whose generation was cut (the real API then says max_tokens); a stop reason the
 * spec does not list is tolerated.
 */
export function stopReasonViolations(message: MessageT): Violation[] {
  const toolUses = message.content.filter((b) => b.type === 'tool_use').length;
  // A stop reason the spec does not list (pause_turn, refusal...) is not judged.
  if (toolUses > 0 && (message.stop_reason === 'end_turn' || message.stop_reason === 'stop_sequence')) {
    return [
      violation(
        'stop_reason',
        `tool_use (the reply holds ${toolUses} tool_use block(s))`,
        `${message.stop_reason}`,
      ),
    ];
  }
  if (toolUses === 0 && message.stop_reason === 'tool_use') {
    return [violation('stop_reason', 'not tool_use (the reply holds no tool_use block)', 'tool_use')];
  }
  return [];
}

/** The real API: stop_sequence holds the sequence exactly when stop_reason is stop_sequence. */
export function stopSequenceViolations(message: MessageT): Violation[] {
  const sequence = message.stop_sequence;
  if (message.stop_reason === 'stop_sequence' && (typeof sequence !== 'string' || sequence === '')) {
    return [
      violation(
        'stop_sequence',
        'the sequence that stopped the reply (stop_reason stop_sequence)',
        String(sequence),
      ),
    ];
  }
  if (message.stop_reason !== 'stop_sequence' && sequence !== null) {
    return [
      violation('stop_sequence', `null (stop_reason ${message.stop_reason})`, JSON.stringify(sequence)),
    ];
  }
  return [];
}

/** "Built-in shell tool": the input of a bash tool_use has a string `command` (and maybe `restart`). */
export function bashInputViolations(message: MessageT): Violation[] {
  if (mayCutOutput(message.stop_reason)) return [];
  const found: Violation[] = [];
  message.content.forEach((block, i) => {
    if (block.type !== 'tool_use' || block.name !== 'bash') return;
    const parsed = BashToolInput.safeParse(block.input);
    if (!parsed.success) {
      found.push(
        violation(
          `content[${i}] (tool_use ${block.id})`,
          'input {command: string, restart?: boolean}',
          zodIssues(parsed.error),
        ),
      );
    }
  });
  return found;
}

/** The real API's error body `{"type":"error","error":{"type","message"}}`; `actual` is the body received. */
export function errorBodyViolations(reply: BufferedReply): Violation[] {
  const parsed = ErrorBody.safeParse(reply.json);
  if (parsed.success) return [];
  const why = reply.jsonError !== undefined ? 'not JSON' : zodIssues(parsed.error);
  return [
    violation(
      `HTTP ${reply.status} body (${why})`,
      '{"type":"error","error":{"type":string,"message":string}}',
      describeReply(reply),
    ),
  ];
}

/** `error.type` of a body, read leniently: the body's shape is errorBodyViolations' business. */
export function errorTypeOf(reply: BufferedReply): string | undefined {
  const error = (reply.json as { error?: { type?: unknown } } | null | undefined)?.error;
  return typeof error?.type === 'string' ? error.type : undefined;
}

/** "What the service does 2", the part a nondeterministic model cannot vary: the input token count. */
export function inputTokenAgreement(buffered: MessageT, streamed: MessageT): Violation[] {
  if (buffered.usage.input_tokens === streamed.usage.input_tokens) return [];
  return [
    violation(
      'usage.input_tokens',
      `the buffered reply's ${buffered.usage.input_tokens} for the same request`,
      `${streamed.usage.input_tokens} in the stream`,
    ),
  ];
}

function contentOf(message: MessageT): string {
  return JSON.stringify(
    message.content.map((b) =>
      b.type === 'text' ? { type: b.type, text: b.text } : { type: b.type, name: b.name, input: b.input },
    ),
  );
}

/** "What the service does 2", all of it: same model, content and output tokens. */
export function contentAgreement(buffered: MessageT, streamed: MessageT): Violation[] {
  const found: Violation[] = [];
  if (buffered.model !== streamed.model) found.push(violation('model', buffered.model, streamed.model));
  const a = contentOf(buffered);
  const b = contentOf(streamed);
  if (a !== b) found.push(violation('content', a, b));
  if (buffered.usage.output_tokens !== streamed.usage.output_tokens) {
    found.push(
      violation('usage.output_tokens', `${buffered.usage.output_tokens}`, `${streamed.usage.output_tokens}`),
    );
  }
  if (buffered.stop_reason !== streamed.stop_reason) {
    found.push(violation('stop_reason', `${buffered.stop_reason}`, `${streamed.stop_reason}`));
  }
  return found;
}
