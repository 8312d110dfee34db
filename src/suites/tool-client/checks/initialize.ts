import { type Check, CheckFailure } from '../../../harness/check.js';
import { clientRequests } from '../../../mocks/tools/index.js';
import {
  isBefore,
  isProtocolRevision,
  METHODS,
  PROTOCOL_VERSION,
  revisionsFrom,
  revisionsUntil,
} from '../../../protocol/mcp/index.js';
import { ECHO_INPUT, type ToolClientCtx } from '../context.js';
import { evidenceOf, expectClientError, expectTraffic, initializeParamsOf } from '../expect.js';
import { excuseIfPlainCallFails } from '../plain-call.js';
import { revisionOf, type ToolTransport } from '../target.js';
import { CASE_BUDGET_MS, idOf } from './common.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A version no client speaks, answered by the mock in the version-checked case. */
export const UNSUPPORTED_SERVER_VERSION = '1999-01-01';

/** What the client's `initialize` carries (spec "Tool-server objects", "Versioning"). */
export function initializeChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'initialize.protocol-version'),
      clause: 'Versioning: tool-server protocol version sent in initialize is 2024-11-05',
      description: `The client's initialize asks for protocolVersion ${PROTOCOL_VERSION}.`,
      level: 'must',
      basis: 'spec',
      rule: 'The spec: the tool-server protocol version a client sends in initialize is 2024-11-05. Every tool client.',
      revisions: revisionsUntil('2024-11-05'),
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'initialize');
        const { params, seq } = initializeParamsOf(result, 'initialize');
        if (params.protocolVersion !== PROTOCOL_VERSION) {
          throw new CheckFailure(
            `initialize asked for protocolVersion ${JSON.stringify(params.protocolVersion)}`,
            JSON.stringify(PROTOCOL_VERSION),
            JSON.stringify(params.protocolVersion),
            evidenceOf(result, 'initialize', seq),
          );
        }
      },
    },
    {
      id: idOf(t, 'initialize.offers-revision'),
      clause:
        'MCP lifecycle, version negotiation: the client sends a version it supports, which SHOULD be the latest it supports (2025-03-26 and later; --protocol names a revision the client speaks)',
      description:
        "The client's initialize asks for the revision of --protocol or a later one, not an earlier one.",
      level: 'should',
      basis: 'protocol-should',
      rule: 'MCP (every revision): in initialize the client MUST send a protocol version it supports, and it SHOULD be the latest version it supports. Run with --protocol R, the client speaks R, so asking for an earlier revision is not asking for its latest; asking for R, a later revision or a version wirecheck does not know is fine (the mock then answers R).',
      revisions: revisionsFrom('2025-03-26'),
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'initialize');
        const { params, seq } = initializeParamsOf(result, 'initialize');
        const wanted = revisionOf(ctx.target, t);
        const asked = params.protocolVersion;
        if (typeof asked !== 'string') {
          throw new CheckFailure(
            `initialize asked for protocolVersion ${JSON.stringify(asked)}, not a version string`,
            `"${wanted}" or a later revision`,
            JSON.stringify(asked) ?? 'absent',
            evidenceOf(result, 'initialize', seq),
          );
        }
        if (isProtocolRevision(asked) && isBefore(asked, wanted)) {
          throw new CheckFailure(
            `initialize asked for ${asked}, a revision before ${wanted} (--protocol), which the client speaks`,
            `"${wanted}" or a later revision`,
            JSON.stringify(asked),
            evidenceOf(result, 'initialize', seq),
          );
        }
      },
    },
    {
      id: idOf(t, 'initialize.client-info'),
      clause: 'Tool-server objects: initialize params clientInfo {name: string, version: string}; Versioning',
      description: "The client's initialize carries clientInfo with string name and version.",
      level: 'must',
      basis: 'spec',
      rule: 'The spec: initialize params carry clientInfo {name: string, version: string} (MCP 2024-11-05 requires it). Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'initialize');
        const { params, seq } = initializeParamsOf(result, 'initialize');
        const info = params.clientInfo;
        if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
          throw new CheckFailure(
            `initialize has no clientInfo with string name and version (got ${JSON.stringify(info) ?? 'nothing'})`,
            '"clientInfo": {"name": string, "version": string}',
            JSON.stringify(info) ?? 'absent',
            evidenceOf(result, 'initialize', seq),
          );
        }
      },
    },
    {
      id: idOf(t, 'initialize.capabilities'),
      clause: 'Tool-server objects: initialize params capabilities: object',
      description: "The client's initialize carries a capabilities object.",
      level: 'must',
      basis: 'spec',
      rule: 'The spec: initialize params carry a capabilities object (MCP 2024-11-05 requires it, empty or not). Every tool client.',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        expectTraffic(result, 'initialize');
        const { params, seq } = initializeParamsOf(result, 'initialize');
        if (!isPlainObject(params.capabilities)) {
          throw new CheckFailure(
            `initialize has no capabilities object (got ${JSON.stringify(params.capabilities) ?? 'nothing'})`,
            '"capabilities": {...}',
            JSON.stringify(params.capabilities) ?? 'absent',
            evidenceOf(result, 'initialize', seq),
          );
        }
      },
    },
    {
      id: idOf(t, 'initialize.version-checked'),
      clause:
        'MCP 2024-11-05 lifecycle, version negotiation: a client that does not support the version the server answers SHOULD disconnect (not shown in the spec)',
      description: `A server answering initialize with a version the client cannot speak (${UNSUPPORTED_SERVER_VERSION}) makes the client fail with the error shape, without calling the tool.`,
      level: 'should',
      basis: 'protocol-should',
      rule: "MCP 2024-11-05 (and 2025-11-25, in the same words): if the client does not support the protocol version in the server's initialize answer, it SHOULD disconnect; a client that carries on talks a protocol neither side agreed to.",
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        const result = await ctx.runCase({
          transport: t,
          scenario: { protocolVersion: UNSUPPORTED_SERVER_VERSION },
          input: ECHO_INPUT,
          signal: env.signal,
        });
        expectTraffic(result, 'unsupported version answered');
        const call = clientRequests(result.journal, METHODS.toolsCall)[0];
        if (call !== undefined) {
          throw new CheckFailure(
            `the server answered protocolVersion ${UNSUPPORTED_SERVER_VERSION} and the client went on to call the tool`,
            'the client stops with an error after the initialize answer',
            call.entry.text,
            evidenceOf(result, 'unsupported version answered', call.entry.seq),
          );
        }
        // Stopping before the call shows a version check only in a client that does call otherwise.
        await excuseIfPlainCallFails(ctx, result, 'unsupported version answered');
        expectClientError(result, 'unsupported version answered');
      },
    },
  ];
}
