import { type Check, NotExercised } from '../../../harness/check.js';
import { clientRequests } from '../../../mocks/tools/index.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import { ECHO_INPUT, type ToolClientCtx } from '../context.js';
import { describeCase, expectCallSent, expectClientError, expectReached } from '../expect.js';
import { excuseIfPlainCallFails } from '../plain-call.js';
import type { ToolTransport } from '../target.js';
import { CASE_BUDGET_MS, echoWithFaults, idOf } from './common.js';

const SCRIPTED_ERROR = { code: -32603, message: 'wirecheck scripted failure of the echo tool' };
const CONTRACT =
  'The target contract: on a protocol or transport failure the client exits non-zero and prints {"error":{"message":M}} on stdout, so a caller can tell a failure from a result. Every tool client.';

/** How the session ends mid-way, per transport, for errors.stream-closed. */
const STREAM_CLOSED: Record<ToolTransport, { clause: string; description: string }> = {
  stdio: {
    clause:
      'A stdio session ends when the server process ends; target contract (README), tool-client: on a transport failure exit non-zero with {"error":{"message":M}}',
    description:
      'The server exits after the initialize reply: the client exits non-zero with the error shape, without hanging.',
  },
  sse: {
    clause:
      'SSE tool-server session: the stream closes; target contract (README), tool-client: on a transport failure exit non-zero with {"error":{"message":M}}',
    description:
      'The stream closed after the initialize reply: the client exits non-zero with the error shape, without hanging.',
  },
  http: {
    clause:
      'Streamable HTTP: the server goes away (every later request is cut off unanswered); target contract (README), tool-client: on a transport failure exit non-zero with {"error":{"message":M}}',
    description:
      'After the initialize reply the mock cuts every connection of the session without an answer: the client exits non-zero with the error shape, without hanging.',
  },
};

/** Failures the client must report as `{"error":{"message"}}` with a non-zero exit. */
export function errorChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'errors.jsonrpc-error'),
      clause:
        'target contract (README), tool-client: on a protocol failure exit non-zero with {"error":{"message":M}} on stdout',
      description:
        'A JSON-RPC error reply to tools/call makes the client exit non-zero with the error shape.',
      level: 'must',
      basis: 'contract',
      rule: CONTRACT,
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: { calls: { echo: { error: SCRIPTED_ERROR } } },
          input: ECHO_INPUT,
          signal: env.signal,
        });
        expectReached(result, 'JSON-RPC error reply');
        expectCallSent(result, 'JSON-RPC error reply');
        expectClientError(result, 'JSON-RPC error reply');
      },
    },
    {
      id: idOf(t, 'errors.unknown-tool'),
      clause:
        'Errors: a call for an unknown tool is an error (message names the tool); target contract (README), tool-client',
      description:
        'A call of a tool the server does not offer ends with a non-zero exit and the error shape (a client that refuses it from tools/list without calling it is judged only if it finishes the plain call).',
      level: 'must',
      basis: 'contract',
      rule: `The spec: calling a tool the server does not offer is an error. ${CONTRACT}`,
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: {},
          input: { tool: 'wirecheck-no-such-tool', arguments: {} },
          signal: env.signal,
        });
        expectReached(result, 'unknown tool');
        // A client may look the tool up in tools/list and refuse it without calling.
        expectCallSent(result, 'unknown tool', [METHODS.toolsCall, METHODS.toolsList]);
        // Without the call the mock gave no failure: an error shows a refusal only from a client
        // that finishes the plain call (one that fails every call reports its own failure).
        if (clientRequests(result.journal, METHODS.toolsCall).length === 0) {
          await excuseIfPlainCallFails(
            ctx,
            result,
            'unknown tool: the client listed the tools and called none',
          );
        }
        expectClientError(result, 'unknown tool');
      },
    },
    {
      id: idOf(t, 'errors.stream-closed'),
      clause: STREAM_CLOSED[t].clause,
      description: STREAM_CLOSED[t].description,
      level: 'must',
      basis: 'contract',
      rule: `A session ends when the server closes the stream or exits. ${CONTRACT}`,
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await echoWithFaults(ctx, env, t, { closeStreamAfter: 1 });
        expectReached(result, 'stream closed');
        // The mock closes the session after the client's first message: without the close
        // there is nothing to judge.
        if (!result.journal.some((e) => e.kind === 'closed' && e.direction === 'sent')) {
          throw new NotExercised(
            `stream closed: the mock never closed the session, since the client sent it nothing to answer (${describeCase(result)})`,
          );
        }
        expectClientError(result, 'session closed by the server mid-session');
      },
    },
  ];
}
