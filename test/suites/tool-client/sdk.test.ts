import { beforeAll, expect, test } from 'vitest';
import { ensureBuilt, nodeCommand, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const P = 'tool-client.';

// Interop: a client on the official @modelcontextprotocol/sdk Client (clients/mcp-sdk-client.mjs).
// FACTS: the SDK always asks for its newest protocol version, so it fails the 2024-11-05
// version check on both transports, and it refuses an absolute endpoint on another origin
// (the spec: a client uses an absolute endpoint as is). This pins everything else it does.
test('a client on the official MCP SDK fails the protocol version and other-origin checks only, and warns on non-JSON stdout', async () => {
  const result = await runAgainst(nodeCommand('./clients/mcp-sdk-client.mjs'));
  const failed = result.checks.filter((c) => c.status === 'fail');
  // Messages included, so an unexpected failure explains itself in the diff.
  expect(
    failed.map((c) => (c.id.endsWith('.initialize.protocol-version') ? c.id : `${c.id}: ${c.message}`)),
  ).toEqual([
    `${P}stdio.initialize.protocol-version`,
    `${P}sse.initialize.protocol-version`,
    expect.stringMatching(/^tool-client\.sse\.endpoint\.other-origin: .*no POST reached the announced endpoint/),
  ]);
  // The SDK reports a non-JSON stdout line to onerror and reads on: the result is still right
  // (the must passes), but the client does not end with an error (the should warns).
  const warned = result.checks.filter((c) => c.status === 'warn').map((c) => c.id);
  expect(warned).toEqual([`${P}stdio.non-json-stdout.error`]);
  const version = result.checks.find((c) => c.id === `${P}sse.initialize.protocol-version`)!;
  expect(version.expected).toBe('"2024-11-05"');
  expect(version.actual).not.toBe('"2024-11-05"');
}, 180_000);
