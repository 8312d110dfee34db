import { describe, expect, test } from 'vitest';
import type { Message } from '../../../src/protocol/messages/index.js';
import {
  type BufferedReply,
  bashInputViolations,
  bufferedContentTypeViolations,
  bufferedMessage,
  contentAgreement,
  errorBodyViolations,
  errorTypeOf,
  inputTokenAgreement,
  type StreamedReply,
  stopReasonViolations,
  streamHeaderViolations,
} from '../../../src/suites/messages-service/index.js';

const MESSAGE: Message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'wirecheck' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 2 },
};

const TOOL_USE = { type: 'tool_use' as const, id: 'toolu_1', name: 'bash', input: { command: 'ls' } };

function buffered(status: number, body: unknown, contentType = 'application/json'): BufferedReply {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  let jsonError: string | undefined;
  try {
    json = JSON.parse(text);
  } catch (e) {
    jsonError = (e as Error).message;
  }
  return { status, headers: { 'content-type': contentType }, text, json, jsonError };
}

function streamed(status: number, contentType: string | undefined): StreamedReply {
  return {
    status,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    frames: [],
    unterminated: '',
    invalidLines: [],
    text: '',
    aborted: false,
    readError: undefined,
  };
}

describe('Resources: Message response (buffered)', () => {
  test('HTTP 200 with a message is conformant', () => {
    expect(bufferedMessage(buffered(200, MESSAGE))).toEqual({ message: MESSAGE, violations: [] });
  });

  test('stop_sequence left out reads as its default, null (the spec shows "string or null")', () => {
    const { stop_sequence: _, ...withoutStopSequence } = MESSAGE;
    expect(bufferedMessage(buffered(200, withoutStopSequence))).toEqual({ message: MESSAGE, violations: [] });
  });

  test('a non-200 status, a body that is not JSON and a wrong role are each violations', () => {
    expect(bufferedMessage(buffered(500, { type: 'error' })).violations[0]?.expected).toBe('HTTP 200');
    expect(bufferedMessage(buffered(200, 'oops')).violations[0]?.expected).toBe('a JSON body');
    expect(bufferedMessage(buffered(200, { ...MESSAGE, role: 'bot' })).violations[0]?.actual).toMatch(
      /^role/,
    );
  });

  test("a finished reply needs a stop reason: a string, the spec's or one the real API added since", () => {
    expect(bufferedMessage(buffered(200, { ...MESSAGE, stop_reason: null })).violations[0]?.actual).toBe(
      'null',
    );
    expect(bufferedMessage(buffered(200, { ...MESSAGE, stop_reason: 7 })).violations[0]?.actual).toMatch(
      /^stop_reason/,
    );
    expect(bufferedMessage(buffered(200, { ...MESSAGE, stop_reason: 'refusal' })).violations).toEqual([]);
    expect(bufferedMessage(buffered(200, { ...MESSAGE, stop_reason: 'pause_turn' })).violations).toEqual([]);
  });

  test('content blocks of types the spec does not describe are skipped, broken known ones are not', () => {
    const reply = buffered(200, {
      ...MESSAGE,
      content: [{ type: 'thinking', thinking: 'hm', signature: 's' }, ...MESSAGE.content],
    });
    expect(bufferedMessage(reply)).toEqual({ message: MESSAGE, violations: [] });
    const broken = buffered(200, { ...MESSAGE, content: [{ type: 'text', text: 7 }] });
    expect(bufferedMessage(broken).violations).toHaveLength(1);
  });
});

describe('content types', () => {
  test('a buffered reply is application/json, with or without parameters, or a +json type', () => {
    expect(bufferedContentTypeViolations(buffered(200, MESSAGE, 'application/json; charset=utf-8'))).toEqual(
      [],
    );
    expect(bufferedContentTypeViolations(buffered(200, MESSAGE, 'application/vnd.x+json'))).toEqual([]);
    expect(bufferedContentTypeViolations(buffered(200, MESSAGE, 'text/plain'))[0]?.actual).toBe('text/plain');
  });

  test('a stream is HTTP 200 text/event-stream', () => {
    expect(streamHeaderViolations(streamed(200, 'text/event-stream; charset=utf-8'))).toEqual([]);
    expect(streamHeaderViolations(streamed(200, 'application/json')).map((v) => v.where)).toEqual([
      'content-type',
    ]);
    expect(streamHeaderViolations(streamed(400, undefined)).map((v) => v.where)).toEqual([
      'status',
      'content-type',
    ]);
  });
});

describe('What the service does 3: stop reason tool_use exactly when a tool_use block is sent', () => {
  test('tool_use with a tool_use block, end_turn without one: conformant', () => {
    expect(stopReasonViolations({ ...MESSAGE, content: [TOOL_USE], stop_reason: 'tool_use' })).toEqual([]);
    expect(stopReasonViolations(MESSAGE)).toEqual([]);
  });

  test('end_turn with a tool_use block is a violation', () => {
    expect(stopReasonViolations({ ...MESSAGE, content: [TOOL_USE] })[0]?.actual).toBe('end_turn');
  });

  test('tool_use without a tool_use block is a violation', () => {
    expect(stopReasonViolations({ ...MESSAGE, stop_reason: 'tool_use' })[0]?.actual).toBe('tool_use');
  });

  test('a reply cut by max_tokens may hold a tool_use block', () => {
    expect(stopReasonViolations({ ...MESSAGE, content: [TOOL_USE], stop_reason: 'max_tokens' })).toEqual([]);
  });
});

describe('Built-in shell tool: tool_use input', () => {
  test('a bash input without a string command is a violation; other tools are not judged', () => {
    const bad = { ...TOOL_USE, input: { cmd: 'ls' } };
    const other = { ...TOOL_USE, name: 'other', input: {} };
    const message = { ...MESSAGE, content: [TOOL_USE, bad, other], stop_reason: 'tool_use' as const };
    expect(bashInputViolations(message).map((v) => v.where)).toEqual(['content[1] (tool_use toolu_1)']);
  });

  test.each(['max_tokens', 'refusal', 'model_context_window_exceeded'])(
    'a reply stopped by %s (its output may be cut) is not judged; one stopped by end_turn is',
    (stopReason) => {
      const cut = { ...MESSAGE, content: [{ ...TOOL_USE, input: {} }] };
      expect(bashInputViolations({ ...cut, stop_reason: stopReason })).toEqual([]);
      expect(bashInputViolations({ ...cut, stop_reason: 'end_turn' })).toHaveLength(1);
    },
  );
});

describe('error bodies (the real API shape)', () => {
  test('{"type":"error","error":{"type","message"}} is conformant', () => {
    const reply = buffered(400, { type: 'error', error: { type: 'invalid_request_error', message: 'm' } });
    expect(errorBodyViolations(reply)).toEqual([]);
    expect(errorTypeOf(reply)).toBe('invalid_request_error');
  });

  test('a body without the top-level type, or not JSON, is a violation', () => {
    const noType = buffered(400, { error: { type: 'invalid_request_error', message: 'm' } });
    // The failure says what is wrong and shows the body received.
    expect(errorBodyViolations(noType)[0]?.where).toMatch(/^HTTP 400 body \(type: /);
    expect(errorBodyViolations(noType)[0]?.actual).toMatch(/^HTTP 400 \(application\/json\) "\{\\"error\\":/);
    expect(errorTypeOf(noType)).toBe('invalid_request_error');
    expect(errorBodyViolations(buffered(400, 'Bad Request'))[0]?.where).toMatch(/\(not JSON\)$/);
  });
});

describe('What the service does 2: streamed and buffered replies agree', () => {
  test('different input token counts are a violation', () => {
    const streamedMessage = { ...MESSAGE, usage: { input_tokens: 11, output_tokens: 2 } };
    expect(inputTokenAgreement(MESSAGE, MESSAGE)).toEqual([]);
    expect(inputTokenAgreement(MESSAGE, streamedMessage)[0]?.actual).toBe('11 in the stream');
  });

  test('content, model, output tokens and stop reason are compared; ids are not', () => {
    expect(contentAgreement(MESSAGE, { ...MESSAGE, id: 'msg_2' })).toEqual([]);
    const other: Message = {
      ...MESSAGE,
      model: 'n',
      content: [{ type: 'text', text: 'other' }],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 10, output_tokens: 3 },
    };
    expect(contentAgreement(MESSAGE, other).map((v) => v.where)).toEqual([
      'model',
      'content',
      'usage.output_tokens',
      'stop_reason',
    ]);
  });
});
