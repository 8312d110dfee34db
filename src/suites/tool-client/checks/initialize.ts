import { type Check, CheckFailure } from '../../../harness/check.js';
import { PROTOCOL_VERSION } from '../../../protocol/mcp/index.js';
import type { ToolClientCtx } from '../context.js';
import { evidenceOf, initializeParamsOf } from '../expect.js';
import type { ToolTransport } from '../target.js';
import { CASE_BUDGET_MS, idOf } from './common.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What the client's `initialize` carries (spec "Tool-server objects", "Versioning"). */
export function initializeChecks(t: ToolTransport): Check<ToolClientCtx>[] {
  return [
    {
      id: idOf(t, 'initialize.protocol-version'),
      clause: 'Versioning: tool-server protocol version sent in initialize is 2024-11-05',
      description: `The client's initialize asks for protocolVersion ${PROTOCOL_VERSION} (a newer version fails: the spec fixes the one to send).`,
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
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
      id: idOf(t, 'initialize.client-info'),
      clause: 'Tool-server objects: initialize params clientInfo {name: string, version: string}; Versioning',
      description: "The client's initialize carries clientInfo with string name and version.",
      level: 'must',
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        const { params, seq } = initializeParamsOf(result, 'initialize');
        const info = params.clientInfo;
        if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
          throw new CheckFailure(
            'initialize has no clientInfo with string name and version',
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
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx) {
        const result = await ctx.shared.basic(t);
        const { params, seq } = initializeParamsOf(result, 'initialize');
        if (!isPlainObject(params.capabilities)) {
          throw new CheckFailure(
            'initialize has no capabilities object',
            '"capabilities": {...}',
            JSON.stringify(params.capabilities) ?? 'absent',
            evidenceOf(result, 'initialize', seq),
          );
        }
      },
    },
  ];
}
