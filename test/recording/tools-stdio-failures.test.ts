import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { recordStdioSession } from '../../src/recording/tools/index.js';

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';

let dir: string;
let unhandled: unknown[];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-failures-'));
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await rm(dir, { recursive: true, force: true });
});

/** Lets a rejection nobody handled reach the process's event. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('recordStdioSession when a side fails', () => {
  test('a server that cannot be started is the caller’s error, and nothing else rejects unhandled', async () => {
    async function* input() {
      await new Promise((resolve) => setTimeout(resolve, 200));
      yield PING;
    }
    const recording = recordStdioSession({
      command: 'true',
      cwd: join(dir, 'missing'),
      input: input(),
      write: () => {},
      writeError: () => {},
      outDir: join(dir, 'out'),
    });
    await expect(recording).rejects.toThrow(/ENOENT/);
    await settle();
    expect(unhandled).toEqual([]);
  });

  test("the client's input failing mid-session ends it as if the input had ended there", async () => {
    async function* input() {
      yield PING;
      await new Promise((resolve) => setTimeout(resolve, 100));
      throw new Error('the client went away');
    }
    const written: string[] = [];
    const { exit, session } = await recordStdioSession({
      // Echoes the client's lines back, and exits when its stdin closes.
      command: 'cat',
      input: input(),
      write: (bytes) => {
        written.push(Buffer.from(bytes).toString());
      },
      writeError: () => {},
      outDir: join(dir, 'out'),
    });
    await settle();
    expect(unhandled).toEqual([]);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(written.join('')).toBe(PING);
    expect(session?.messages.map((m) => m.direction)).toEqual(['client->server', 'server->client']);
  });
});
