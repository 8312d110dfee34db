import { type Check, CheckFailure } from '../../../harness/check.js';
import { clientMessages } from '../../../mocks/tools/index.js';
import { type CaseResult, ECHO_INPUT, type ToolClientCtx } from '../context.js';
import { evidenceOf, expectPrintedResult } from '../expect.js';
import { CASE_BUDGET_MS, idOf } from './common.js';

/**
 * Every message the client POSTed went to the path and query the endpoint event announced
 * (the mock answers other paths 404, so a wrong URL would also show as a failed call).
 */
function expectPostsToEndpoint(result: CaseResult, what: string): void {
  const endpoint = result.journal.find((e) => e.kind === 'endpoint');
  if (endpoint === undefined) {
    throw new CheckFailure(
      `${what}: the client never opened the SSE stream (GET /sse)`,
      'GET /sse with Accept: text/event-stream',
      'no stream',
      evidenceOf(result, what),
    );
  }
  const announced = new URL(endpoint.text, 'http://announced.invalid');
  const wanted = `${announced.pathname}${announced.search}`;
  const posts = clientMessages(result.journal);
  if (posts.length === 0) {
    throw new CheckFailure(
      `${what}: no POST reached the announced endpoint ${endpoint.text}`,
      `POST ${wanted}`,
      'no POST',
      evidenceOf(result, what),
    );
  }
  const stray = posts.find((p) => p.http?.url !== wanted);
  if (stray !== undefined) {
    throw new CheckFailure(
      `${what}: a POST went to ${stray.http?.url}, not to the announced endpoint`,
      `POST ${wanted}`,
      `POST ${stray.http?.url}`,
      evidenceOf(result, what, stray.seq),
    );
  }
}

/** Checks of the SSE transport only: the endpoint event, POST statuses, comment frames. */
export const sseChecks: Check<ToolClientCtx>[] = [
  {
    id: idOf('sse', 'endpoint.relative'),
    clause:
      "Tool server, SSE transport: if the announced endpoint is a path, the client prefixes the server's base address",
    description: "An endpoint event carrying a path is resolved against the stream URL's origin.",
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('sse');
      expectPostsToEndpoint(result, 'relative endpoint');
      expectPrintedResult(result, 'relative endpoint');
    },
  },
  {
    id: idOf('sse', 'endpoint.absolute'),
    clause: 'Tool server, SSE transport: if the announced endpoint is an absolute URL a client uses it as is',
    description: 'An endpoint event carrying an absolute URL (same origin) is used as is.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        transport: 'sse',
        scenario: { faults: { endpoint: 'absolute' } },
        input: ECHO_INPUT,
        signal: env.signal,
      });
      expectPostsToEndpoint(result, 'absolute endpoint');
      expectPrintedResult(result, 'absolute endpoint');
    },
  },
  {
    id: idOf('sse', 'post.status-200'),
    clause:
      'Tool server, SSE transport: POST answered HTTP 202 (a client probe treats 200 or 202 as success; the spec says it for probes, hence should)',
    description: 'A POST answered 200 instead of 202 is accepted like 202.',
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        transport: 'sse',
        scenario: { faults: { postStatus: 200 } },
        input: ECHO_INPUT,
        signal: env.signal,
      });
      expectPrintedResult(result, 'POSTs answered 200');
    },
  },
  {
    id: idOf('sse', 'stream.comments'),
    clause:
      'Tool-server SSE events: keep-alive is a comment frame (a line starting with a colon, then a blank line); SSE: comments are ignored',
    description:
      'Comment frames before every event and keep-alive comments in between do not disturb the call.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.runCase({
        transport: 'sse',
        scenario: { faults: { commentFrames: true, keepAliveMs: 25, replyDelayMs: 120 } },
        input: ECHO_INPUT,
        signal: env.signal,
      });
      expectPrintedResult(result, 'comment frames on the stream');
    },
  },
];
