import { beforeAll, expect, test } from 'vitest';
import { DEFAULT_JOURNAL_LIMITS } from '../../../src/mocks/limits.js';
import { ensureBuilt, nodeCommand, runAgainst, statusById } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const TRANSPORTS = ['stdio', 'sse', 'http'] as const;

// The flood guard counted a received batch as one message, and the mock answered every ping of a
// batch at once: one batch of 10,001 pings pushed initialize, notifications/initialized and the
// batch itself out of the journal. Over SSE the lifecycle check then failed a correct client for
// a "tools/call before initialize"; over stdio and http the journal held no message of the client
// at all, and the suite said the client never reached the mock (exit 2).
// Each transport alone: with another transport the client reached, the suite would not say it never reached any.
test.each(TRANSPORTS)(
  '%s: a correct client that sends one batch of 10,001 pings is judged from its first message',
  async (t) => {
    expect(10_001).toBeGreaterThan(DEFAULT_JOURNAL_LIMITS.entries);
    const ids = [`tool-client.${t}.lifecycle.initialized-first`, `tool-client.${t}.result.printed`];
    const result = await runAgainst(
      `BATCH_SIZE=10001 ${nodeCommand('./clients/batch-flood.mjs')}`,
      { only: ids },
      [t],
    );
    const shown = result.checks.map((c) => `${c.id}: ${c.status}: ${c.message}`).join('\n');
    expect(statusById(result), shown).toEqual({
      // initialize and notifications/initialized are still in the journal, before the batch.
      [`tool-client.${t}.lifecycle.initialized-first`]: 'pass',
      // Its 10,001 messages are a flood: stopped there, it never got to print the result.
      [`tool-client.${t}.result.printed`]: 'fail',
    });
    expect(result.checks.find((c) => c.id === `tool-client.${t}.result.printed`)?.message).toMatch(
      /wirecheck stopped it after 100\d\d messages in this case/,
    );
  },
  120_000,
);
