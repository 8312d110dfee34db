import { afterEach, describe, expect, test } from 'vitest';
import { messageOutput, runMessagesClientCommand } from '../../../src/clients/messages/index.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import {
  closedPort,
  errorJson,
  type Handler,
  MESSAGE,
  type RawService,
  rawService,
  SSE_HEADERS,
  streamBody,
} from './raw-service.js';

const BODY = JSON.stringify({
  model: 'model-x',
  max_tokens: 16,
  messages: [{ role: 'user', content: 'hi' }],
});
const STREAM_BODY = JSON.stringify({ ...JSON.parse(BODY), stream: true });

let services: RawService[] = [];
afterEach(async () => {
  await Promise.all(services.map((s) => s.close()));
  services = [];
});

async function serve(handler: Handler): Promise<RawService> {
  const service = await rawService(handler);
  services.push(service);
  return service;
}

/** The env TARGETS.md gives a messages-client command: both WIRECHECK_* and ANTHROPIC_*. */
function envFor(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    WIRECHECK_BASE_URL: url,
    WIRECHECK_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    WIRECHECK_MAX_RETRIES: '0',
    ...extra,
  };
}

function printedError(stdout: string): { kind: string; status?: number; message: string } {
  return (JSON.parse(stdout) as { error: { kind: string; status?: number; message: string } }).error;
}

describe('messages-client target command (TARGETS.md)', () => {
  test('a buffered reply prints the final message and exits 0', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(MESSAGE));
    });
    const result = await runMessagesClientCommand({ stdin: BODY, env: envFor(service.url) });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(MESSAGE);
  });

  test('a streamed reply prints the same buffered shape and exits 0', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    const result = await runMessagesClientCommand({ stdin: STREAM_BODY, env: envFor(service.url) });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(MESSAGE);
  });

  test('the ANTHROPIC_* variables alone are enough', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(MESSAGE));
    });
    const env = { ANTHROPIC_BASE_URL: service.url, ANTHROPIC_API_KEY: 'sk-a' };
    expect((await runMessagesClientCommand({ stdin: BODY, env })).exitCode).toBe(0);
    expect(service.requests[0]?.headers['x-api-key']).toBe('sk-a');
  });

  test('without a key it exits 1 with kind missing_api_key and sends no request', async () => {
    const service = await serve((_req, res) => res.end());
    const { WIRECHECK_API_KEY: _w, ANTHROPIC_API_KEY: _a, ...env } = envFor(service.url);
    const result = await runMessagesClientCommand({ stdin: BODY, env });
    expect(result.exitCode).toBe(1);
    expect(printedError(result.stdout)).toEqual({ kind: 'missing_api_key', message: expect.any(String) });
    expect(service.requests).toHaveLength(0);
  });

  test('a 429 exits 1 with kind rate_limit and status 429', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after': '0' });
      res.end(errorJson('rate_limit_error', 'slow down'));
    });
    const result = await runMessagesClientCommand({ stdin: BODY, env: envFor(service.url) });
    expect(result.exitCode).toBe(1);
    expect(printedError(result.stdout)).toMatchObject({ kind: 'rate_limit', status: 429 });
  });

  test('WIRECHECK_MAX_RETRIES sets the retries', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after-ms': '1' });
      res.end(errorJson('rate_limit_error', 'slow down'));
    });
    await runMessagesClientCommand({ stdin: BODY, env: envFor(service.url, { WIRECHECK_MAX_RETRIES: '3' }) });
    expect(service.requests).toHaveLength(4);
  });

  test('another non-success status exits 1 with kind status and that status', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(errorJson('api_error', 'internal'));
    });
    const result = await runMessagesClientCommand({ stdin: BODY, env: envFor(service.url) });
    expect(result.exitCode).toBe(1);
    const error = printedError(result.stdout);
    expect(error).toMatchObject({ kind: 'status', status: 500 });
    expect(error.message).toContain('api_error');
  });

  test('a refused connection exits 1 with kind connection and no status', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await runMessagesClientCommand({ stdin: BODY, env: envFor(url) });
    expect(result.exitCode).toBe(1);
    const error = printedError(result.stdout);
    expect(error.kind).toBe('connection');
    expect('status' in error).toBe(false);
  });

  test('an error event in the stream exits 1 with kind stream', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(
        encodeEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } as never),
      );
    });
    const result = await runMessagesClientCommand({ stdin: STREAM_BODY, env: envFor(service.url) });
    expect(result.exitCode).toBe(1);
    const error = printedError(result.stdout);
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('overloaded_error');
  });

  test('a stalled stream exits 1 with kind stream after WIRECHECK_IDLE_TIMEOUT_MS', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(`${streamBody().split('\n\n')[0]}\n\n`);
    });
    const env = envFor(service.url, { WIRECHECK_IDLE_TIMEOUT_MS: '100' });
    const result = await runMessagesClientCommand({ stdin: STREAM_BODY, env });
    expect(result.exitCode).toBe(1);
    expect(printedError(result.stdout)).toMatchObject({
      kind: 'stream',
      message: 'stream idle for 100 ms after frame 1',
    });
  });

  test.each([
    ['not JSON', '{"model":'],
    ['not an object', '[1,2]'],
  ])('a stdin body that is %s is a usage error: exit 2, stderr, nothing sent', async (_what, stdin) => {
    const service = await serve((_req, res) => res.end());
    const result = await runMessagesClientCommand({ stdin, env: envFor(service.url) });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/stdin must hold one JSON/);
    expect(service.requests).toHaveLength(0);
  });

  test('a malformed WIRECHECK_MAX_RETRIES is a usage error', async () => {
    const result = await runMessagesClientCommand({
      stdin: BODY,
      env: envFor('http://127.0.0.1:9', { WIRECHECK_MAX_RETRIES: 'two' }),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('WIRECHECK_MAX_RETRIES');
  });

  test('a tool_use input whose fragments nest a million levels deep is a stream error object, not a crash', async () => {
    const levels = 1_000_000;
    const fragments = ['{"a":', '['.repeat(levels), ']'.repeat(levels), '}'];
    const events = [
      { type: 'message_start', message: { ...MESSAGE, content: [], stop_reason: null } },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'bash' },
      },
      ...fragments.map((partial_json) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json },
      })),
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 1 },
      },
      { type: 'message_stop' },
    ];
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(events.map((e) => encodeEvent(e)).join(''));
    });
    const result = await runMessagesClientCommand({ stdin: STREAM_BODY, env: envFor(service.url) });
    expect(result.exitCode).toBe(1);
    const printed = printedError(result.stdout);
    expect(printed).toMatchObject({ kind: 'stream', status: 200 });
    expect(printed.message).toContain('JSON nested deeper than the 512-level limit (maxDepth)');
  });
});

describe("the command's success output", () => {
  const deep = (levels: number): unknown => {
    let value: unknown = {};
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };

  test.each([
    ['nested past what JSON.stringify survives', () => deep(1_000_000), /RangeError/],
    ['holding a BigInt', () => ({ ...MESSAGE, usage: { input_tokens: 1n } }), /TypeError/],
  ])("a final message %s becomes the contract's stream error object", (_what, message, cause) => {
    const result = messageOutput(message());
    expect(result.exitCode).toBe(1);
    const printed = printedError(result.stdout);
    expect(printed.kind).toBe('stream');
    expect(printed.message).toMatch(/^the final message cannot be printed as JSON: expected/);
    expect(printed.message).toMatch(cause);
    expect(result.stderr).toMatch(/^messages-client: StreamError: /);
  });

  test('a final message that can be printed is one JSON line, exit 0', () => {
    expect(messageOutput(MESSAGE)).toEqual({
      stdout: `${JSON.stringify(MESSAGE)}\n`,
      stderr: '',
      exitCode: 0,
    });
  });
});
