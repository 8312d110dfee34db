import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { mockToolServerCommand } from '../../../src/mocks/tools/index.js';

const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

// The spec's stdio session ends when the server process ends: a mock that closes its session
// (fault closeStreamAfter) must end its process while the client still holds its stdin open,
// or a client that waits for the server's exit hangs through no fault of its own.
test('the stdio mock process (direct launcher) exits once it closed its session, its stdin still open', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-stdio-process-test-'));
  try {
    const scenarioFile = join(dir, 'scenario.json');
    await writeFile(scenarioFile, JSON.stringify({ faults: { closeStreamAfter: 1 } }));
    const child = spawn('sh', ['-c', `exec ${mockToolServerCommand({ scenarioFile, launcher: 'direct' })}`], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Two requests in one write, stdin left open: the mock answers the first and closes.
    child.stdin.write(
      `${init}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } })}\n`,
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    expect(await exit).toBe(0);
    clearTimeout(timer);
    child.stdin.destroy();
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 20_000);
