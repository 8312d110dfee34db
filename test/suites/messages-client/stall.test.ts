import { expect, test } from 'vitest';
import { STALL_ALLOWANCE_MS } from '../../../src/suites/messages-client/checks/stream-errors.js';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const STALL = 'messages-client.stream-errors.stall';
const ENDS_MID_BLOCK = 'messages-client.stream-errors.ends-mid-block';

// A file of its own: the client that waits forever holds its case for the whole allowance
// (90 s), which the other files need not wait behind.
test.concurrent(
  'a client that waits forever on a stream silent after message_start (no idle timeout) warns on stream-errors.stall',
  async () => {
    const result = await runAgainst(nodeCommand('./broken/conforming.mjs'), {
      only: [STALL, ENDS_MID_BLOCK],
    });
    expect(statusById(result)).toEqual({ [STALL]: 'warn', [ENDS_MID_BLOCK]: 'pass' });
    const stall = result.checks.find((c) => c.id === STALL)!;
    expect(stall.message).toMatch(
      /still waiting 90 s after it started; the stream went silent after message_start/,
    );
  },
  STALL_ALLOWANCE_MS + 60_000,
);

test.concurrent('the same client giving up after 3 s without a byte passes stream-errors.stall', async () => {
  const result = await runAgainst(nodeCommand('./broken/idle-timeout.mjs'), {
    only: [STALL, ENDS_MID_BLOCK],
  });
  expect(statusById(result)).toEqual({ [STALL]: 'pass', [ENDS_MID_BLOCK]: 'pass' });
}, 60_000);
