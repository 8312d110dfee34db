import type { CheckResult, Evidence, SuiteResult } from '../../src/harness/results.js';
import { summarize } from '../../src/harness/results.js';

function check(suite: string, c: Partial<CheckResult> & Pick<CheckResult, 'id' | 'status'>): CheckResult {
  return {
    suite,
    clause: 'Events rule 1',
    description: 'frames arrive in order',
    level: c.status === 'warn' ? 'should' : 'must',
    message: c.status === 'pass' ? '' : `${c.id} says so`,
    durationMs: 7,
    ...c,
  };
}

function suite(name: string, checks: CheckResult[]): SuiteResult {
  return {
    suite: name,
    target: `http://127.0.0.1:9/${name}`,
    seed: 42,
    summary: summarize(checks),
    checks,
    startedAt: '2026-11-21T10:00:00.000Z',
    durationMs: 1234,
    wirecheck: '0.1.0',
  };
}

/** A stream whose 5th frame (index 4) breaks the order; one frame carries markup a target could send. */
export const FRAMES_EVIDENCE: Evidence = {
  kind: 'frames',
  title: 'tool stream',
  mark: 4,
  frames: [
    { atMs: 0, event: 'message_start', data: '{"type":"message_start","message":{"id":"msg_1"}}' },
    { atMs: 3, event: 'content_block_start', data: '{"type":"content_block_start","index":0}' },
    {
      atMs: 5,
      event: 'content_block_delta',
      data: '{"type":"content_block_delta","text":"</script><img src=x>"}',
    },
    { atMs: 6, comment: true, data: 'keep-alive' },
    { atMs: 40, event: 'message_delta', data: '{"type":"message_delta"}' },
    { atMs: 41, event: 'content_block_stop', data: '{"type":"content_block_stop","index":0}' },
    { atMs: 42, event: 'message_stop', data: '{"type":"message_stop"}' },
  ],
};

/** Two sessions; the reply that went to the wrong session (index 3) is marked. */
export const RPC_EVIDENCE: Evidence = {
  kind: 'jsonrpc',
  title: 'two SSE sessions',
  mark: 3,
  messages: [
    { atMs: 0, session: 'A', direction: 'sent', text: '{"jsonrpc":"2.0","id":1,"method":"initialize"}' },
    { atMs: 1, session: 'B', direction: 'sent', text: '{"jsonrpc":"2.0","id":1,"method":"initialize"}' },
    { atMs: 4, session: 'A', direction: 'received', text: '{"jsonrpc":"2.0","id":1,"result":{}}' },
    { atMs: 5, session: 'A', direction: 'received', text: '{"jsonrpc":"2.0","id":1,"result":{"for":"B"}}' },
  ],
};

/** Two suites: passes, a failure with frames, a failure with JSON-RPC messages, a warning, a skip. */
export function syntheticResults(): SuiteResult[] {
  return [
    suite('stream-suite', [
      check('stream-suite', { id: 'stream-suite.a.pass-1', status: 'pass' }),
      check('stream-suite', { id: 'stream-suite.a.pass-2', status: 'pass' }),
      check('stream-suite', {
        id: 'stream-suite.order',
        status: 'fail',
        message:
          'frame order (Events rule 1): at tool stream, frame 4: expected content_block_stop, got message_delta',
        expected: '{"next":"content_block_stop","index":0}',
        actual: '{"next":"message_delta","index":0}',
        reproduce: 'npx wirecheck test stream-suite --seed 42 --only stream-suite.order',
        evidence: FRAMES_EVIDENCE,
      }),
      check('stream-suite', {
        id: 'stream-suite.ping',
        status: 'warn',
        message: 'no ping frame during a long pause',
        expected: 'a ping',
        actual: 'none',
      }),
    ]),
    suite('rpc-suite', [
      check('rpc-suite', { id: 'rpc-suite.a.pass', status: 'pass' }),
      check('rpc-suite', {
        id: 'rpc-suite.sessions.routing',
        clause: 'Errors: responses routed to wrong client',
        status: 'fail',
        message: 'the reply to session B arrived on session A',
        evidence: RPC_EVIDENCE,
      }),
      check('rpc-suite', { id: 'rpc-suite.keepalive', status: 'skip', message: 'needs --full' }),
    ]),
  ];
}
