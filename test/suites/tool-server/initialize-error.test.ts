import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import type { ToolServerTarget } from '../../../src/suites/tool-server/target.js';
import { NODE, quickSuite } from './helpers.js';

// A stdio server that answers initialize with an error: the message names the protocolVersion
// wirecheck offered (the run's --protocol), and a version error says another may work.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wc-init-error-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `node server.mjs`: every request answered with the JSON-RPC error `make(protocolVersion offered)`. */
async function refusingServer(name: string, error: string): Promise<string> {
  const file = join(dir, `${name}.mjs`);
  await writeFile(
    file,
    `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  const offered = m.params?.protocolVersion;
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: (${error})(offered) }) + '\\n');
});
`,
  );
  return `${NODE} ${shellQuote(file)}`;
}

async function unavailable(target: ToolServerTarget): Promise<string> {
  const error = await runSuite(quickSuite, target, { seed: 1, runs: 1 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TargetUnavailable);
  return (error as Error).message;
}

test('an initialize error names the protocolVersion --protocol offered, and a version error hints at another', async () => {
  const command = await refusingServer(
    'unsupported',
    "(v) => ({ code: -32602, message: 'Unsupported protocol version: ' + v })",
  );
  const message = await unavailable({ kind: 'stdio', command, protocol: '2025-06-18' });
  expect(message).toContain('it answered initialize (protocolVersion 2025-06-18) with an error');
  expect(message).toContain('Unsupported protocol version: 2025-06-18');
  expect(message).toContain(
    'the error is about the protocol version: another --protocol may work (wirecheck also speaks 2024-11-05, 2025-03-26, 2025-11-25 over stdio)',
  );
}, 30_000);

test("a version error naming the versions the server supports (MCP's data.supported) names the --protocol to use", async () => {
  const command = await refusingServer(
    'supported',
    "(v) => ({ code: -32602, message: 'Unsupported protocol version', data: { supported: ['2025-06-18', '1.0'], requested: v } })",
  );
  const message = await unavailable({ kind: 'stdio', command });
  expect(message).toContain('it answered initialize (protocolVersion 2024-11-05) with an error');
  expect(message).toContain('it says it supports 2025-06-18: test it with --protocol 2025-06-18');
}, 30_000);

test('an initialize error about something else gets no hint about versions', async () => {
  const command = await refusingServer('other', "() => ({ code: -32603, message: 'config file missing' })");
  const message = await unavailable({ kind: 'stdio', command, protocol: '2025-03-26' });
  expect(message).toContain('it answered initialize (protocolVersion 2025-03-26) with an error');
  expect(message).not.toContain('--protocol');
}, 30_000);
