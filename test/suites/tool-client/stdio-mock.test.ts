import { beforeAll, expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { openToolClient } from '../../../src/suites/tool-client/context.js';
import { createToolClientSuite, referenceToolClientCommand } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, nodeCommand, SEED, statusById } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// A stdio case's mock runs in the harness behind a perl relay where there is perl, and as a
// Node.js process of its own where there is none: the verdicts must not depend on which.
const MODES = ['relay', 'process'] as const;

/** What the client of a stdio case is given as its server command, by mode. */
async function serverCommand(stdioMock: (typeof MODES)[number]): Promise<string> {
  const client = `echo "$WIRECHECK_SERVER_CMD" >&2; exec ${referenceToolClientCommand()}`;
  const ctx = await openToolClient({ client, transports: ['stdio'] }, SEED, { stdioMock });
  try {
    return (await ctx.shared.basic('stdio')).run.stderr.split('\n')[0] ?? '';
  } finally {
    await ctx.close();
  }
}

test('a stdio case starts the perl relay by default, and the mock process when asked', async () => {
  expect(await serverCommand('relay')).toMatch(/^exec \S*perl -e /);
  expect(await serverCommand('process')).toMatch(/mock-tools-stdio\.js/);
}, 60_000);

test.each([
  ['the reference client', referenceToolClientCommand()],
  ['a client that signals the server before closing its stdin', nodeCommand('./clients/kill-first.mjs')],
  ['a client that keeps waiting when the server goes away', nodeCommand('./clients/hang-on-close.mjs')],
  ['a client that floods the server with pings', nodeCommand('./clients/flood-pings.mjs')],
  ['a client that leaves a setsid sleep behind', nodeCommand('./clients/leave-setsid-sleep.mjs')],
  // The mock process once outlived the session it closed, and failed this client on errors.stream-closed.
  ['a client that sends its requests without awaiting replies', nodeCommand('./clients/no-await.mjs')],
  // Two server processes, each a session of its own (the mock processes share one journal file).
  [
    'a client that lists the tools in a server process of its own first',
    nodeCommand('./clients/list-in-own-session.mjs'),
  ],
])(
  '%s gets the same stdio verdicts through the relay as from the mock process',
  async (_, client) => {
    const [relay, process] = await Promise.all(
      MODES.map((stdioMock) =>
        runSuite(
          createToolClientSuite({ caseTimeoutMs: 20_000, maxCommandRuns: 3, stdioMock }),
          { client, transports: ['stdio'] },
          { seed: SEED, runs: 3 },
        ),
      ),
    );
    expect(relay?.summary.passed).toBeGreaterThan(5);
    expect(statusById(relay!)).toEqual(statusById(process!));
  },
  240_000,
);
