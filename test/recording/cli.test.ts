import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startMockForServe } from '../../src/cli/serve-messages-mock.js';
import { BUNDLED_LIBRARY_DIR } from '../../src/fixtures/index.js';
import { type MockMessagesService, startMockMessagesService } from '../../src/mocks/messages/index.js';
import { cli } from '../cli/fake-suites.js';
import { postRaw } from './raw-client.js';

let dir: string;
let mock: MockMessagesService;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-cli-'));
  mock = await startMockMessagesService();
});
afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

/** `wirecheck ARGS` in-process, its output readable while it runs; `stop` interrupts it. */
function live(args: string[]) {
  const stop = new AbortController();
  const output = { stdout: '', stderr: '' };
  const done = main(['node', 'wirecheck', ...args], {
    stdout: { write: (s: string) => (output.stdout += s) },
    stderr: { write: (s: string) => (output.stderr += s) },
    env: {},
    deps: {},
    onShutdown: () => ({ signal: stop.signal, dispose: () => {} }),
  });
  return { output, done, stop: () => stop.abort() };
}

describe('wirecheck record messages', () => {
  test('prints its URL, records each exchange into --out and reports it on stderr', async () => {
    const out = join(dir, 'rec');
    const run = live(['record', 'messages', '--upstream', mock.url, '--out', out]);
    try {
      for (let i = 0; i < 100 && !run.output.stdout.includes('\n'); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(run.output.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
      const reply = await postRaw(run.output.stdout.trim(), {
        model: 'm',
        max_tokens: 5,
        stream: true,
        messages: [{ role: 'user', content: 'recorded by the cli' }],
      });
      expect(reply.status).toBe(200);
    } finally {
      run.stop();
    }
    expect(await run.done).toBe(0);
    const files = await readdir(out);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT.*-0001\.json$/);
    expect(run.output.stderr).toMatch(/recorded POST \/v1\/messages -> 200, \d+ chunk\(s\): /);
    expect((await cli(['fixtures', 'validate', out])).code).toBe(0);
  });

  test('a missing --upstream or --out is a usage error', async () => {
    expect((await cli(['record', 'messages', '--out', dir])).code).toBe(2);
    expect((await cli(['record', 'messages', '--upstream', 'ftp://x', '--out', dir])).stderr).toMatch(
      /WC_USAGE/,
    );
  });
});

describe('wirecheck serve messages --replay', () => {
  test('serves a library recording; faults meaningless on a recording are refused', async () => {
    const running = await startMockForServe({
      host: '127.0.0.1',
      port: 0,
      model: 'echo',
      recordings: [join(BUNDLED_LIBRARY_DIR, 'http-529-overloaded.json')],
      speed: 0,
    });
    try {
      const reply = await postRaw(running.url, {
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(reply.status).toBe(529);
    } finally {
      await running.close();
    }
    const refused = await cli(
      ['serve', 'messages', '--replay', BUNDLED_LIBRARY_DIR, '--fault-line-ending', 'crlf'],
      {
        deps: { startMockMessagesService: startMockForServe },
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no meaning on a recording: lineEnding/);
    const speedAlone = await cli(['serve', 'messages', '--speed', '2'], {
      deps: { startMockMessagesService: startMockForServe },
    });
    expect(speedAlone.stderr).toMatch(/--speed applies to --replay/);
  });
});
