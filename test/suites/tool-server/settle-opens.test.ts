import { describe, expect, it } from 'vitest';
import { CheckFailure, NotExercised } from '../../../src/harness/check.js';
import type { Channel } from '../../../src/suites/tool-server/channel.js';
import { openFailure, settleOpens } from '../../../src/suites/tool-server/checks/open-within-capacity.js';
import { InitializeUnanswered, SessionRefused } from '../../../src/suites/tool-server/context.js';

describe('settleOpens', () => {
  it('keeps the order asked for and splits capacity refusals from other failures', async () => {
    const full = new SessionRefused('503: no more sessions');
    const broken = new Error('connection reset');
    const settled = await settleOpens([
      Promise.resolve('a'),
      Promise.reject(full),
      Promise.resolve('c'),
      Promise.reject(broken),
      Promise.reject(new SessionRefused('429')),
    ]);
    expect(settled.opened).toEqual(['a', undefined, 'c', undefined, undefined]);
    expect(settled.refusal).toBe(full);
    expect(settled.failed).toEqual([broken]);
  });

  it('reports neither refusal nor failure when every session opened', async () => {
    const settled = await settleOpens([Promise.resolve(1), Promise.resolve(2)]);
    expect(settled).toEqual({ opened: [1, 2], refusal: undefined, failed: [] });
  });
});

describe('openFailure', () => {
  /** A session whose peer received these replies to requests it did not send. */
  const session = (strayReplies: unknown[]) => ({ peer: { strayReplies } }) as unknown as Channel;
  const unanswered = (label: string) =>
    new InitializeUnanswered(
      `initialize on ${label} was not answered with a result: no reply within 5000 ms`,
      'an initialize result',
      'nothing',
    );

  it('initialize unanswered in a burst judges nothing: not exercised, saying how many and why', () => {
    const error = openFailure([unanswered('S7'), unanswered('S9')], 25, [session([])]);
    expect(error).toBeInstanceOf(NotExercised);
    expect((error as Error).message).toBe(
      '2 of 25 sessions opened at once got no answer to initialize (the first: initialize on S7 was not answered with a result: no reply within 5000 ms): a server slow to start that many sessions at once looks the same (JSON-RPC sets no deadline), so routing was not judged',
    );
  });

  it('a wrong answer among them is the verdict, and so is one session opened alone left unanswered', () => {
    const wrong = new CheckFailure(
      'initialize on S3 was not answered with a result: {"error":{}}',
      'a result',
      'an error',
    );
    expect(openFailure([unanswered('S1'), wrong], 25, [])).toBe(wrong);
    const alone = unanswered('S4');
    expect(openFailure([alone], 1, [])).toBe(alone);
  });

  it('unanswered where a session of the burst received a reply it did not ask for: the replies went astray, the verdict stands', () => {
    const first = unanswered('S1');
    const newest = session([{ jsonrpc: '2.0', id: 3, result: {} }]);
    expect(openFailure([first, unanswered('S2')], 3, [session([]), newest])).toBe(first);
    // A reply with a null id (a parse error) is no routing: not exercised still.
    const parseError = session([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]);
    expect(openFailure([first], 3, [parseError])).toBeInstanceOf(NotExercised);
  });
});
