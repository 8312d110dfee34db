import { expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { createToolClientSuite } from '../../../src/suites/tool-client/index.js';
import { nodeCommand, runAgainst, SEED, statusById } from './helpers.js';

// MCP 2024-11-05 shuts a stdio server down by closing its stdin, waiting, then SIGTERM, and
// SIGKILL only after that. Through the relay (the default where perl is, as here) the mock
// tells a server killed outright from one whose stdin ended, and wirecheck's own signals
// (a case that ran out) from the client's.

const ORDER = 'tool-client.stdio.shutdown-order';
const PRINTED = 'tool-client.stdio.result.printed';

test('a client that closes the server stdin and waits passes', async () => {
  const result = await runAgainst(nodeCommand('./clients/conforming.mjs'), { only: [ORDER] }, ['stdio']);
  expect(statusById(result)).toEqual({ [ORDER]: 'pass' });
}, 90_000);

test('a client that kills its server (SIGKILL) without closing its stdin is warned, naming the kill', async () => {
  const result = await runAgainst(nodeCommand('./clients/kill-server.mjs'), { only: [ORDER, PRINTED] }, [
    'stdio',
  ]);
  expect(statusById(result)).toEqual({ [ORDER]: 'warn', [PRINTED]: 'pass' });
  const check = result.checks.find((c) => c.id === ORDER);
  expect(check?.message).toMatch(/killed the server without closing its stdin or sending SIGTERM first/);
}, 90_000);

test('a client that hangs past the case time is not exercised: the SIGTERM its server got was wirecheck’s', async () => {
  // Deaf to SIGTERM, the client still runs when its server gets wirecheck's SIGTERM.
  const suite = createToolClientSuite({ caseTimeoutMs: 2_000, maxCommandRuns: 1 });
  const result = await runSuite(
    suite,
    { client: nodeCommand('./clients/hang-at-end.mjs'), transports: ['stdio'] },
    { seed: SEED, runs: 1, only: [ORDER] },
  );
  expect(statusById(result)).toEqual({ [ORDER]: 'skip' });
  const check = result.checks.find((c) => c.id === ORDER);
  expect(check?.message).toMatch(/ran past the case's time and wirecheck ended it/);
}, 90_000);
