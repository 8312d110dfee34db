import { describe, expect, test } from 'vitest';
import { TargetGone } from '../../../src/harness/check.js';
import type { Channel } from '../../../src/suites/tool-server/channel.js';
import type { Exchange } from '../../../src/suites/tool-server/rpc.js';
import { SilenceWatch } from '../../../src/suites/tool-server/silence.js';

/** A session as the watch sees it: the ids of its replies, open, and a diagnosis line. */
function session(replies: number[] = []): Channel {
  return {
    peer: { hasReply: (id: unknown) => replies.includes(id as number) },
    gone: () => undefined,
    diagnosis: () => ({ summary: 'nothing readable', problems: [] }),
  } as unknown as Channel;
}

const unanswered = (id: number): Exchange => ({
  id,
  reply: undefined,
  why: 'no reply within 5000 ms',
  post: undefined,
});

describe('the silence watch: three requests in a row unanswered end the run', () => {
  test('three unanswered requests are a server gone, naming them', () => {
    const watch = new SilenceWatch();
    const a = session();
    watch.watch(a);
    watch.note(a, 'ping', unanswered(1));
    watch.note(a, 'ping', unanswered(2));
    expect(() => watch.note(a, 'tools/list', unanswered(3))).toThrow(TargetGone);
  });

  test('a request whose reply landed on another session is answered: a server that misroutes is talking', () => {
    const watch = new SilenceWatch();
    const a = session();
    const b = session([1, 2, 3]);
    watch.watch(a);
    watch.watch(b);
    // Three in a row unanswered on a, each answered on b: never silence.
    for (const id of [1, 2, 3]) expect(() => watch.note(a, 'ping', unanswered(id))).not.toThrow();
    // Once b is closed and forgotten, its replies no longer count.
    watch.unwatch(b);
    watch.note(a, 'ping', unanswered(1));
    watch.note(a, 'ping', unanswered(2));
    expect(() => watch.note(a, 'ping', unanswered(3))).toThrow(/3 requests in a row unanswered/);
  });
});
