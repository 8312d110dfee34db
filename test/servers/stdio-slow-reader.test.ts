import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../bin/wirecheck.js');
const CALLS = 2048;
const TEXT = 'y'.repeat(64 * 1024);

/** Peak resident memory of a process so far (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/**
 * A client that writes 2,048 echo calls of 64 KiB (128 MiB) to a stdio server and reads none
 * of its replies for 3 s, then reads them all.
 */
async function floodWithoutReading(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    child.stdout.pause();
    const line = (m: unknown) => `${JSON.stringify(m)}\n`;
    child.stdin.on('error', () => {});
    child.stdin.write(
      line({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'flood', version: '1' },
        },
      }) + line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    for (let id = 1; id <= CALLS; id++) {
      child.stdin.write(
        line({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: TEXT } },
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 3_000));
    const peakUnread = peakRssMiB(child.pid!);
    // Then the client reads: every call is answered.
    const answered = new Set<number>();
    let pending = '';
    await new Promise<void>((done) => {
      child.stdout.on('data', (b: Buffer) => {
        pending += b.toString('utf8');
        let nl = pending.indexOf('\n');
        while (nl !== -1) {
          const reply = JSON.parse(pending.slice(0, nl)) as { id: number };
          answered.add(reply.id);
          pending = pending.slice(nl + 1);
          nl = pending.indexOf('\n');
        }
        if (answered.size === CALLS + 1) done();
      });
      child.stdout.resume();
    });
    return { peakUnread, answered: answered.size };
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
  }
}

describe('a stdio server whose client writes and does not read (spec "Tool server, stdio transport")', () => {
  test.each([
    ['the reference server', ['serve', 'tools', '--transport', 'stdio']],
    ['the mock', ['serve', 'mock-tools', '--transport', 'stdio']],
  ])(
    '%s stops reading once 16 MiB of replies wait (its peak stays under 300 MiB while they are unread; it queued every reply, over 1 GB in 8 s), and answers every call once they are read',
    async (_name, args) => {
      const run = await floodWithoutReading(args);
      expect(run.answered).toBe(CALLS + 1);
      expect(run.peakUnread).toBeLessThan(300);
    },
    90_000,
  );
});
