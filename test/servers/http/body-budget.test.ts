import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import {
  BodyBudget,
  BodyHold,
  declaredOverLimit,
  RequestHolds,
} from '../../../src/servers/http/body-budget.js';

// One implementation of the bodies' budget serves the reference tool servers, the mocks and the
// recorders: each names itself in its refusals, and none refuses a body for the budget that its
// size alone refuses.

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

/** Everything `stream` gives, or the error it fails with. */
async function drain(stream: Readable): Promise<{ text: string } | { error: Error }> {
  let text = '';
  try {
    for await (const chunk of stream) text += String(chunk);
    return { text };
  } catch (error) {
    return { error: error as Error };
  }
}

describe('the refusals of a budget', () => {
  test("say the server's words by default, and the words a budget is given (the messages mock's)", () => {
    const server = new BodyBudget(100);
    expect(server.take(80)).toBe(true);
    expect(BodyHold.open(server, { 'content-length': '30' }, 100)).toBe(
      "the server holds 80 bytes of request bodies in flight, and this request's 30 would pass its limit of 100; try again once they are answered",
    );
    const mock = new BodyBudget(100, { holder: 'the mock', ending: ' (bodiesInFlightLimit)' });
    expect(mock.take(80)).toBe(true);
    expect(BodyHold.open(mock, { 'content-length': '30' }, 100)).toBe(
      "the mock holds 80 bytes of request bodies in flight, and this request's 30 would pass its limit of 100 (bodiesInFlightLimit)",
    );
    const chunked = BodyHold.open(mock, { 'transfer-encoding': 'chunked' }, 100);
    if (typeof chunked === 'string')
      throw new Error(`a chunked body reserves nothing up front, got: ${chunked}`);
    expect(chunked.received(30)).toBe(
      'the mock holds 80 bytes of request bodies in flight, and the next 30 bytes of this chunked body (0 received so far) would pass its limit of 100 (bodiesInFlightLimit)',
    );
  });
});

describe('declaredOverLimit', () => {
  test('is the declared length only when it is over the limit', () => {
    expect(declaredOverLimit({ 'content-length': '2000' }, 1000)).toBe(2000);
    expect(declaredOverLimit({ 'content-length': '1000' }, 1000)).toBeUndefined();
    expect(declaredOverLimit({}, 1000)).toBeUndefined();
  });
});

describe('RequestHolds', () => {
  test('a body declared over the limit reserves nothing and is not refused for a spent budget', () => {
    const holds = new RequestHolds(new BodyBudget(2000), 1000);
    for (let i = 0; i < 2; i++)
      expect(holds.reserve(request({ 'content-length': '1000' }), new EventEmitter())).toBeUndefined();
    expect(holds.reserve(request({ 'content-length': '1000' }), new EventEmitter())).toMatch(
      /this request's 1000 would pass its limit of 2000/,
    );
    expect(holds.reserve(request({ 'content-length': '5000' }), new EventEmitter())).toBeUndefined();
    expect(holds.budget.inFlight).toBe(2000);
  });

  test('what a request reserved is given back once, when its answer ends', () => {
    const holds = new RequestHolds(new BodyBudget(2000), 1000);
    const answer = new EventEmitter();
    holds.reserve(request({ 'content-length': '700' }), answer);
    expect(holds.budget.inFlight).toBe(700);
    answer.emit('finish');
    answer.emit('close');
    expect(holds.budget.inFlight).toBe(0);
  });

  test('a chunked body takes its bytes as they arrive, and fails with the caller’s error past the budget', async () => {
    const holds = new RequestHolds(new BodyBudget(1000), 1000);
    holds.reserve(request({ 'content-length': '600' }), new EventEmitter());
    const req = request({ 'transfer-encoding': 'chunked' });
    holds.reserve(req, new EventEmitter());
    const payload = new PassThrough();
    const metered = holds.metered(req, payload, (why) => Object.assign(new Error(why), { statusCode: 529 }));
    payload.write('x'.repeat(300));
    payload.end('y'.repeat(300));
    const result = await drain(metered);
    expect(result).toMatchObject({
      error: {
        statusCode: 529,
        message: expect.stringMatching(/the next 300 bytes of this chunked body \(300 received so far\)/),
      },
    });
    expect(holds.budget.inFlight).toBe(900);
  });

  test('a body with a declared length, or a request holding nothing, is read as it is', async () => {
    const holds = new RequestHolds(new BodyBudget(1000), 1000);
    const declared = request({ 'content-length': '5' });
    holds.reserve(declared, new EventEmitter());
    const payload = new PassThrough();
    expect(holds.metered(declared, payload, () => new Error('unexpected'))).toBe(payload);
    const unknown = new PassThrough();
    expect(holds.metered(request({}), unknown, () => new Error('unexpected'))).toBe(unknown);
  });
});
