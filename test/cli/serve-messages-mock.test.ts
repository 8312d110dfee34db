import { describe, expect, test } from 'vitest';
import { startMockForServe } from '../../src/cli/serve-messages-mock.js';
import { cli } from './fake-suites.js';

const REQUEST = {
  model: 'mock-model',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hello there' }],
};

async function post(url: string): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'service-version': '2023-06-01' },
    body: JSON.stringify(REQUEST),
    signal: AbortSignal.timeout(5000),
  });
}

/** Start `wirecheck serve messages` in-process; resolves with the URL it printed. */
async function serve(args: string[]) {
  const stop = new AbortController();
  let printed = '';
  const done = cli(['serve', 'messages', ...args], {
    deps: {
      startMockMessagesService: async (options) => {
        const running = await startMockForServe(options);
        printed = running.url;
        return running;
      },
    },
    shutdown: stop.signal,
  });
  for (let i = 0; i < 100 && printed === ''; i++) await new Promise((r) => setTimeout(r, 20));
  expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return {
    url: printed,
    stop: async () => {
      stop.abort();
      return await done;
    },
  };
}

describe('wirecheck serve messages with the real mock service', () => {
  test('the echo model answers on the printed URL, and the service closes on shutdown', async () => {
    const server = await serve(['--port', '0']);
    try {
      const response = await post(server.url);
      expect(response.status).toBe(200);
      const message = (await response.json()) as { content: { type: string; text?: string }[] };
      expect(message.content[0]).toEqual({ type: 'text', text: 'hello there' });
    } finally {
      const run = await server.stop();
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${server.url}\n`);
    }
    await expect(post(server.url)).rejects.toThrow();
  });

  test('--fault-status makes every request fail with that status', async () => {
    const server = await serve(['--fault-status', '529']);
    try {
      expect((await post(server.url)).status).toBe(529);
    } finally {
      await server.stop();
    }
  });

  test('a fixtures directory that does not exist is WC_SERVE_FAILED', async () => {
    const run = await cli(['serve', 'messages', '--fixtures', '/nonexistent/wirecheck-fixtures'], {
      deps: { startMockMessagesService: startMockForServe },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_SERVE_FAILED');
  });
});
