import { type Check, CheckFailure, CheckSkipped } from '../../../harness/check.js';
import { JSONRPC_ERRORS } from '../../../protocol/jsonrpc/index.js';
import { CallToolResult, METHODS, resultText } from '../../../protocol/mcp/index.js';
import type { ToolServerCtx } from '../context.js';
import { call, callOk } from '../rpc.js';
import {
  answerKind,
  callResultProblems,
  defaultProblems,
  propertyProblems,
  toolsListProblems,
  unknownToolAnswer,
} from '../rules.js';
import {
  findDiagnosticTool,
  minimalArguments,
  noArgumentTool,
  probeTool,
  verbosityArgument,
} from '../tool-choice.js';
import { brief, CHECK_MS, CLAUSES, failWith } from './common.js';

const UNKNOWN_TOOL = 'wirecheck-no-such-tool-7f3a';

async function listed(ctx: ToolServerCtx) {
  const tools = await ctx.tools();
  if (tools.length === 0) throw new CheckSkipped('the server lists no tools');
  return tools;
}

/** One call of the unknown tool, shared by the two checks that judge its answer. */
function unknownToolCall(ctx: ToolServerCtx) {
  return ctx.shared('unknown-tool', async () => {
    const channel = await ctx.main();
    const reply = await call(channel, METHODS.toolsCall, { name: UNKNOWN_TOOL, arguments: {} }, ctx.replyMs);
    return { channel, reply, answer: unknownToolAnswer(reply, UNKNOWN_TOOL) };
  });
}

export const toolChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.tools.list-shape',
    clause: `${CLAUSES.objects} (Tool: name, inputSchema with type object)`,
    description:
      'tools/list answers a `tools` array; each tool has a string name and an inputSchema of type "object".',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const channel = await ctx.main();
      const reply = await callOk(channel, METHODS.toolsList, {}, ctx.replyMs);
      const problems = toolsListProblems(reply.result);
      if (problems.length > 0) {
        throw failWith(
          `the tools/list result is malformed: ${problems.slice(0, 10).join('; ')}`,
          'tools[] with name and inputSchema.type "object"',
          brief(reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.property-schema',
    clause: `${CLAUSES.objects} (inputSchema: each property with type, description)`,
    description:
      'Each property of an inputSchema has a `type` and a `description` (should: JSON Schema also allows $ref and anyOf properties).',
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const problems = propertyProblems(await listed(ctx));
      if (problems.length > 0) {
        throw new CheckFailure(
          `${problems.length} properties lack a type or description: ${problems.slice(0, 10).join('; ')}`,
          'type and description on every property',
          problems.join('\n'),
        );
      }
    },
  },
  {
    id: 'tool-server.tools.defaults-valid',
    clause: `${CLAUSES.objects} (inputSchema: optional default)`,
    description: "A property's default has the property's type (and is among its enum).",
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const problems = defaultProblems(await listed(ctx));
      if (problems.length > 0) {
        throw new CheckFailure(
          `invalid defaults: ${problems.slice(0, 10).join('; ')}`,
          'defaults valid for their schema',
          problems.join('\n'),
        );
      }
    },
  },
  {
    id: 'tool-server.tools.call-result-shape',
    clause: `${CLAUSES.objects} (Tool call result: content array of {type: "text", text})`,
    description:
      'tools/call of a listed tool with valid arguments is answered with a result whose content is an array of items with a type; text items carry a string text.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = probeTool(await listed(ctx));
      if (tool === undefined)
        throw new CheckSkipped('every listed tool looks slow or networked; none was called');
      const channel = await ctx.main();
      const reply = await call(
        channel,
        METHODS.toolsCall,
        { name: tool.name, arguments: minimalArguments(tool) },
        ctx.replyMs,
      );
      if (!('result' in reply)) {
        throw failWith(
          `tools/call of ${tool.name} with valid arguments was answered with an error`,
          'a call result',
          brief(reply),
          [channel],
        );
      }
      const problems = callResultProblems(reply.result);
      if (problems.length > 0) {
        throw failWith(
          `the result of ${tool.name} is malformed: ${problems.join('; ')}`,
          'content: [{type, text?}]',
          brief(reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.arguments-absent',
    clause: `${CLAUSES.sseTransport} ("a tool's arguments may be absent and then count as empty")`,
    description: 'tools/call without `arguments` is answered as the same call with `arguments: {}` is.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = noArgumentTool(await listed(ctx));
      if (tool === undefined)
        throw new CheckSkipped('every listed tool looks slow or networked; none was called');
      const channel = await ctx.main();
      const absent = await call(channel, METHODS.toolsCall, { name: tool.name }, ctx.replyMs);
      const empty = await call(channel, METHODS.toolsCall, { name: tool.name, arguments: {} }, ctx.replyMs);
      if (answerKind(absent) !== answerKind(empty)) {
        throw failWith(
          `${tool.name} without arguments got ${answerKind(absent)}, with arguments {} ${answerKind(empty)}`,
          `the same kind of answer as with {} (${answerKind(empty)})`,
          brief(absent),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.unknown-tool-rejected',
    clause: `${CLAUSES.errors} (unknown tool: error raised by the handler); ${CLAUSES.sseTransport} ("Calling a tool name that the server does not offer is an error")`,
    description:
      'tools/call of a tool the server does not offer is an error: a JSON-RPC error, or at least a result with isError: true; never a plain success.',
    level: 'must',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, reply, answer } = await unknownToolCall(ctx);
      if (answer.kind === 'success' || answer.kind === 'malformed') {
        throw failWith(
          `calling the unknown tool ${UNKNOWN_TOOL} was answered as a success`,
          'a JSON-RPC error (or a result with isError: true) naming the tool',
          brief(reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.unknown-tool-error',
    clause: `${CLAUSES.errors} (unknown tool: "error raised by the handler (message names the unknown tool)")`,
    description:
      'The unknown tool is answered with a JSON-RPC error naming it (MCP 2024-11-05 lists it as a protocol error, -32602); the official SDK answers a result with isError: true instead (a warning).',
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, reply, answer } = await unknownToolCall(ctx);
      if (answer.kind === 'error' && answer.names) return;
      const what =
        answer.kind === 'error'
          ? `a JSON-RPC error ${answer.code} whose message does not name the tool`
          : answer.kind === 'is-error'
            ? `a result with isError: true${answer.names ? ' naming the tool' : ' not naming the tool'} instead of a JSON-RPC error`
            : 'a success';
      throw failWith(
        `the unknown tool ${UNKNOWN_TOOL} got ${what}`,
        `a JSON-RPC error (e.g. ${JSONRPC_ERRORS.invalidParams}) whose message names ${UNKNOWN_TOOL}`,
        brief(reply),
        [channel],
      );
    },
  },
  {
    id: 'tool-server.tools.diagnostic',
    clause: 'Endpoints: Tool server, SSE transport ("Reference tool behaviours": a diagnostic tool)',
    description:
      'The diagnostic tool (when the server has one) answers one text content item, with its optional boolean verbose/detailed argument absent, false and true.',
    // The spec describes this tool among the *reference* server's behaviours and the suite finds it
    // by name, so a server whose own health tool answers differently is not wrong: a warning.
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = findDiagnosticTool(await ctx.tools());
      if (tool === undefined)
        throw new CheckSkipped('no diagnostic tool (by name, or a status tool with a verbose/detailed flag)');
      const channel = await ctx.main();
      const flag = verbosityArgument(tool);
      const variants: (Record<string, unknown> | undefined)[] = [
        undefined,
        ...(flag ? [{ [flag]: false }, { [flag]: true }] : []),
      ];
      for (const args of variants) {
        const params = args === undefined ? { name: tool.name } : { name: tool.name, arguments: args };
        const reply = await callOk(channel, METHODS.toolsCall, params, ctx.replyMs);
        const parsed = CallToolResult.safeParse(reply.result);
        const content = parsed.success ? parsed.data.content : [];
        const only = content[0];
        if (
          content.length !== 1 ||
          only?.type !== 'text' ||
          typeof only.text !== 'string' ||
          only.text.trim() === ''
        ) {
          throw failWith(
            `${tool.name} ${args === undefined ? 'without arguments' : `with ${JSON.stringify(args)}`} did not answer one non-empty text item`,
            'content: [{type: "text", text: "<status and process information>"}]',
            brief(reply),
            [channel],
          );
        }
      }
    },
  },
  {
    id: 'tool-server.tools.diagnostic-content',
    clause:
      'Endpoints: Tool server, SSE transport ("returning one text content item with status and process information")',
    description:
      "The diagnostic tool's text tells a status and something about the process (pid, uptime, memory, runtime).",
    level: 'should',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = findDiagnosticTool(await ctx.tools());
      if (tool === undefined) throw new CheckSkipped('no diagnostic tool');
      const channel = await ctx.main();
      const reply = await callOk(channel, METHODS.toolsCall, { name: tool.name, arguments: {} }, ctx.replyMs);
      const parsed = CallToolResult.safeParse(reply.result);
      const text = parsed.success ? resultText(parsed.data) : '';
      const status = /status|ok|healthy|running|ready|up/i.test(text);
      const proc = /pid|process|uptime|memory|rss|node|python|platform|version/i.test(text);
      if (!status || !proc) {
        throw failWith(
          `the diagnostic text tells ${status ? '' : 'no status'}${!status && !proc ? ' and ' : ''}${proc ? '' : 'nothing about the process'}`,
          'a status word (ok, running, healthy...) and process facts (pid, uptime, memory...)',
          text.slice(0, 600),
          [channel],
        );
      }
    },
  },
];
