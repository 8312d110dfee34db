import { type Check, CheckFailure, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { safeParseFirstIssue } from '../../../protocol/first-bad-element.js';
import { JSONRPC_ERRORS, type JsonRpcErrorResponse } from '../../../protocol/jsonrpc/index.js';
import {
  CallToolResult,
  METHODS,
  resultText,
  revisionsFrom,
  revisionsUntil,
  type Tool,
} from '../../../protocol/mcp/index.js';
import { noToolMessage } from '../call-policy.js';
import type { ToolServerCtx } from '../context.js';
import { unreadNote } from '../listed-tools.js';
import { PrerequisiteFailed } from '../prerequisite.js';
import { call, successOf } from '../rpc.js';
import {
  answerKind,
  callResultProblems,
  defaultProblems,
  propertyCounts,
  propertyProblems,
  replyText,
  structuredContentProblems,
  toolNameProblems,
  toolsListProblems,
  unknownToolAnswer,
} from '../rules.js';
import { toolCallReply } from '../slow-call.js';
import {
  findDiagnosticTool,
  invalidArguments,
  minimalArguments,
  noArgumentTool,
  resultProbeTools,
  verbosityArgument,
} from '../tool-choice.js';
import { brief, CHECK_MS, CLAUSES, failWith } from './common.js';

/** The name the unknown-tool probe calls, unless the server lists it (then a suffix is added: CallLedger.probeName). */
const UNKNOWN_TOOL = 'wirecheck-no-such-tool-7f3a';

/** At most this many tools with an outputSchema are called by the structured-content check. */
const MAX_STRUCTURED_CALLS = 3;

function hasOutputSchema(tool: Tool): boolean {
  const schema = (tool as { outputSchema?: unknown }).outputSchema;
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
}

async function listed(ctx: ToolServerCtx) {
  const tools = await ctx.tools();
  if (tools.length === 0) {
    const unread = unreadNote((await ctx.policy()).unread);
    throw new NotExercised(
      unread === undefined ? 'the server lists no tools' : `no tool to judge: ${unread}`,
    );
  }
  return tools;
}

/** The tools the checks may call (--call-tools); a skip saying how to opt in when there are none. */
export async function callable(ctx: ToolServerCtx, what: string) {
  await listed(ctx);
  const policy = await ctx.policy();
  if (policy.allowed.length === 0) throw new CheckSkipped(noToolMessage(policy, what));
  return policy.allowed;
}

/**
 * Every name tools/list gave, malformed entries' too (a tool named there is still the
 * server's); none when the list could not be read (its checks report why).
 */
async function listedNames(ctx: ToolServerCtx): Promise<Set<string>> {
  const pages = await ctx.toolPages().catch((e: unknown) => {
    if (e instanceof PrerequisiteFailed) return undefined;
    throw e;
  });
  const names = new Set<string>();
  for (const result of pages?.results ?? []) {
    const raw = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(raw)) continue;
    for (const item of raw) {
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name === 'string') names.add(name);
    }
  }
  return names;
}

/** One call of the unknown tool, shared by the two checks that judge its answer. */
function unknownToolCall(ctx: ToolServerCtx) {
  return ctx.shared('unknown-tool', async () => {
    // A server may list a tool by the probe's own name: it is then a tool of the server,
    // called with {} unasked, so the probe takes a name the listing does not hold.
    const name = ctx.calls.probeName(UNKNOWN_TOOL, await listedNames(ctx));
    const channel = await ctx.main();
    const reply = await call(channel, METHODS.toolsCall, { name, arguments: {} }, ctx.replyMs);
    return { channel, reply, name, answer: unknownToolAnswer(reply, name) };
  });
}

/**
 * One call of a tool the checks may call, with one of its required arguments left out: the
 * call both invalid-arguments checks judge (each for its own revisions).
 */
async function invalidArgumentsCall(ctx: ToolServerCtx) {
  const tools = await callable(ctx, 'tools/call with invalid arguments');
  const found = tools.map((t) => ({ tool: t, args: invalidArguments(t) })).find((c) => c.args !== undefined);
  if (found === undefined) {
    throw new NotExercised('no tool that may be called has a required argument to leave out');
  }
  const channel = await ctx.main();
  const reply = await toolCallReply(channel, { name: found.tool.name, arguments: found.args }, ctx.replyMs);
  const what = `${found.tool.name} with ${JSON.stringify(found.args)} (a required argument missing)`;
  return { channel, reply, what };
}

export const toolChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.tools.list-shape',
    clause: `${CLAUSES.objects} (Tool: name, inputSchema with type object)`,
    description:
      'tools/list answers a `tools` array (on every page); each tool has a string name and an inputSchema of type "object".',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a tool as a server lists it has a string name and an inputSchema that is a JSON Schema object of type "object" (MCP 2024-11-05 requires both). Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const pages = await ctx.toolPages();
      if (pages.results.length === 0) {
        throw failWith(
          pages.problem ?? 'tools/list gave no result',
          'a tools/list result',
          pages.problem ?? 'nothing',
          [pages.channel],
        );
      }
      const problems = pages.results.flatMap((result, page) =>
        toolsListProblems(result).map((p) => (pages.results.length > 1 ? `page ${page + 1}: ${p}` : p)),
      );
      if (problems.length > 0) {
        throw failWith(
          `the tools/list result is malformed: ${problems.slice(0, 10).join('; ')}`,
          'tools[] with name and inputSchema.type "object"',
          JSON.stringify(pages.results[0]).slice(0, 600),
          [pages.channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.list-pages',
    clause: 'MCP 2024-11-05 pagination: tools/list nextCursor (not shown in the spec)',
    description:
      'When tools/list gives a nextCursor, asking again with that cursor is answered with the next page, and the pages end (at most 50, no cursor repeated, no tool listed twice).',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2024-11-05 pagination: a nextCursor means more results, and the client continues by sending that cursor back; the protocol does not make a server honour it with a MUST, but a list a client cannot page through hides its tools.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const pages = await ctx.toolPages();
      if (pages.problem !== undefined && pages.results.length > 0) {
        throw failWith(pages.problem, 'every page answered, the last without a nextCursor', pages.problem, [
          pages.channel,
        ]);
      }
      if (pages.results.length < 2) {
        throw new NotExercised('tools/list gave no nextCursor: the server lists its tools on one page');
      }
      if (pages.cut !== undefined) throw new NotExercised(`the end of the pages was not seen: ${pages.cut}`);
      const names = (await ctx.tools()).map((t) => t.name);
      const twice = names.filter((n, i) => names.indexOf(n) !== i);
      if (twice.length > 0) {
        throw failWith(
          `tools listed on more than one page: ${twice.join(', ')}`,
          'each tool on one page',
          names.join(', '),
          [pages.channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.property-schema',
    clause: `${CLAUSES.objects} (inputSchema: each property with type, description)`,
    description: 'Each property of an inputSchema has a `type` and a `description`.',
    level: 'should',
    basis: 'spec-reference',
    rule: "The spec's tool table shows each property with a type and a description, as the reference server lists them; MCP 2024-11-05 and JSON Schema require neither ($ref, anyOf and untyped properties are valid), so a server without them still works.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tools = await listed(ctx);
      if (propertyCounts(tools).properties === 0) {
        throw new NotExercised(`no listed tool has a property (${tools.length} tools)`);
      }
      const problems = propertyProblems(tools);
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
    basis: 'protocol-should',
    rule: 'JSON Schema: it is RECOMMENDED that a default be valid against its schema; a client that fills in an invalid default sends the server arguments it refuses.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tools = await listed(ctx);
      const counts = propertyCounts(tools);
      if (counts.defaults === 0) {
        throw new NotExercised(
          `no property has a default (${counts.properties} properties in ${tools.length} tools)`,
        );
      }
      const problems = defaultProblems(tools);
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
    basis: 'spec',
    rule: 'The spec: a tool call result is `content`, an array of items such as {type: "text", text: string} (MCP 2024-11-05 adds image and resource items, which are accepted). Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tools = resultProbeTools(await callable(ctx, 'tools/call of a listed tool'));
      if (tools.length === 0) throw new CheckSkipped('every tool that may be called looks slow or networked');
      const channel = await ctx.main();
      // Arguments made from a schema may still be refused (a pattern, a record that does not
      // exist): an error answer is allowed and shows no result, so the next tool is tried.
      const refused: string[] = [];
      for (const tool of tools) {
        const args = minimalArguments(tool);
        const reply = await toolCallReply(channel, { name: tool.name, arguments: args }, ctx.replyMs);
        if (!('result' in reply)) {
          refused.push(`${tool.name} ${JSON.stringify(args)}: ${brief(reply)}`);
          continue;
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
        return;
      }
      throw new NotExercised(
        `no call was answered with a result, so there was no result to judge: every tool tried answered its arguments (made from its input schema) with an error: ${refused.join('; ')}`,
      );
    },
  },
  {
    id: 'tool-server.tools.arguments-absent',
    clause: `${CLAUSES.sseTransport} ("a tool's arguments may be absent and then count as empty")`,
    description: 'tools/call without `arguments` is answered as the same call with `arguments: {}` is.',
    level: 'must',
    basis: 'spec',
    rule: "The spec: a tool's arguments may be absent, and then count as empty. Every tool server. Both calls refused, each in other words, show nothing either way (the refusal without arguments may be its own): not exercised.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = noArgumentTool(await callable(ctx, 'tools/call without arguments'));
      if (tool === undefined) throw new CheckSkipped('every tool that may be called looks slow or networked');
      const channel = await ctx.main();
      const absent = await toolCallReply(channel, { name: tool.name }, ctx.replyMs);
      const empty = await toolCallReply(channel, { name: tool.name, arguments: {} }, ctx.replyMs);
      if (answerKind(absent) !== answerKind(empty)) {
        throw failWith(
          `${tool.name} without arguments got ${answerKind(absent)} (${brief(absent)}), with arguments {} ${answerKind(empty)}`,
          `the same kind of answer as with {} (${answerKind(empty)})`,
          brief(absent),
          [channel],
        );
      }
      // Two refusals of one kind show the same only when they say the same: the one for no
      // arguments may be its own ("arguments are required"), beside one for a missing property.
      if (answerKind(empty) !== 'a result' && replyText(absent) !== replyText(empty)) {
        throw new NotExercised(
          `${tool.name} was refused with arguments {} (${brief(empty)}) and, in other words, without them (${brief(absent)}): two different refusals cannot show that absent arguments count as empty`,
        );
      }
    },
  },
  {
    id: 'tool-server.tools.unknown-tool-rejected',
    clause: `${CLAUSES.errors} (unknown tool: "error raised by the handler (message names the unknown tool)"); ${CLAUSES.sseTransport} ("Calling a tool name that the server does not offer is an error")`,
    description:
      'tools/call of a tool the server does not offer is refused (a JSON-RPC error, or a result with isError: true), and the message names the tool.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: calling a tool name the server does not offer is an error, and its message names the unknown tool. Every tool server.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, reply, name, answer } = await unknownToolCall(ctx);
      if (answer.kind === 'success' || answer.kind === 'malformed') {
        throw failWith(
          `calling the unknown tool ${name} was answered as a success: ${brief(reply)}`,
          'a JSON-RPC error (or a result with isError: true) naming the tool',
          brief(reply),
          [channel],
        );
      }
      if (!answer.names) {
        throw failWith(
          `the refusal of the unknown tool ${name} does not name it: ${brief(reply)}`,
          `an error message containing ${name}`,
          brief(reply),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.unknown-tool-error',
    clause: `${CLAUSES.errors} (unknown tool: "error raised by the handler"); MCP 2024-11-05 tools: unknown tools are protocol errors`,
    description: 'The unknown tool is refused with a JSON-RPC error rather than a result with isError: true.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2024-11-05 lists an unknown tool among the protocol errors (a JSON-RPC error such as -32602), and isError results among tool execution errors; it states no MUST, and the official SDK answers a result with isError: true.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, reply, name, answer } = await unknownToolCall(ctx);
      if (answer.kind === 'error') return;
      throw failWith(
        `the unknown tool ${name} got ${answer.kind === 'is-error' ? 'a result with isError: true' : 'a success'} instead of a JSON-RPC error: ${brief(reply)}`,
        `a JSON-RPC error (e.g. ${JSONRPC_ERRORS.invalidParams})`,
        brief(reply),
        [channel],
      );
    },
  },
  {
    id: 'tool-server.tools.invalid-params',
    clause:
      'MCP 2024-11-05 tools, error handling: invalid arguments are a protocol error (the spec leaves codes "not shown")',
    description:
      'tools/call of a listed tool without one of its required arguments is answered with JSON-RPC error -32602 Invalid params.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2024-11-05 lists invalid arguments among the protocol errors, and JSON-RPC 2.0 names -32602 Invalid params for them; neither makes it a MUST (many servers answer a result with isError: true). MCP 2025-11-25 moved input validation errors to the tool execution errors, so the check holds up to 2025-06-18.',
    revisions: revisionsUntil('2025-06-18'),
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, reply, what } = await invalidArgumentsCall(ctx);
      // A reply with a result is a success whatever else it holds (`"error": null` too).
      if (!('result' in reply) && (reply as JsonRpcErrorResponse).error.code === JSONRPC_ERRORS.invalidParams)
        return;
      throw failWith(`${what} was answered ${brief(reply)}`, 'JSON-RPC error -32602', brief(reply), [
        channel,
      ]);
    },
  },
  {
    id: 'tool-server.tools.invalid-arguments-result',
    clause: 'MCP 2025-11-25 tools, error handling: input validation errors are tool execution errors',
    description:
      'tools/call of a listed tool without one of its required arguments is answered with a result with isError: true.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-11-25 lists input validation errors among the tool execution errors, reported in tool results with isError: true so that a model can correct itself (SEP-1303: "should be returned as Tool Execution Errors rather than Protocol Errors"); the text makes it no MUST.',
    revisions: revisionsFrom('2025-11-25'),
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const { channel, reply, what } = await invalidArgumentsCall(ctx);
      if ('result' in reply && (reply.result as { isError?: unknown } | null)?.isError === true) return;
      throw failWith(`${what} was answered ${brief(reply)}`, 'a result with isError: true', brief(reply), [
        channel,
      ]);
    },
  },
  {
    id: 'tool-server.tools.structured-content',
    clause:
      'MCP 2025-06-18 tools, output schema ("Servers MUST provide structured results that conform to this schema")',
    description:
      'A call of a tool that declares an outputSchema, answered with a result (not isError), carries structuredContent that conforms to the schema (type, enum, const, required, properties, items).',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-06-18 and later: if a tool provides an output schema, servers MUST provide structured results (`structuredContent`, a JSON object) that conform to it. Every tool server run under 2025-06-18 or later, for the tools that declare one.',
    revisions: revisionsFrom('2025-06-18'),
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const withSchema = (await listed(ctx)).filter(hasOutputSchema);
      if (withSchema.length === 0) throw new NotExercised('no listed tool declares an outputSchema');
      const allowed = new Set(
        (await callable(ctx, 'tools/call of a tool with an outputSchema')).map((t) => t.name),
      );
      const tools = withSchema.filter((t) => allowed.has(t.name)).slice(0, MAX_STRUCTURED_CALLS);
      if (tools.length === 0) {
        throw new CheckSkipped(
          `the tools with an outputSchema (${withSchema.map((t) => t.name).join(', ')}) may not be called (--call-tools)`,
        );
      }
      const channel = await ctx.main();
      let judged = 0;
      for (const tool of tools) {
        const reply = await toolCallReply(
          channel,
          { name: tool.name, arguments: minimalArguments(tool) },
          ctx.replyMs,
        );
        if (!('result' in reply)) continue;
        const result = reply.result as { isError?: unknown; structuredContent?: unknown } | null;
        if (result?.isError === true) continue;
        judged += 1;
        const content = result?.structuredContent;
        const problems =
          typeof content !== 'object' || content === null || Array.isArray(content)
            ? [
                `structuredContent is ${content === undefined ? 'absent' : JSON.stringify(content).slice(0, 80)}, not an object`,
              ]
            : structuredContentProblems(tool.outputSchema, content);
        if (problems.length > 0) {
          throw failWith(
            `${tool.name} declares an outputSchema, and its result does not conform: ${problems.slice(0, 5).join('; ')}`,
            `structuredContent conforming to ${JSON.stringify(tool.outputSchema).slice(0, 300)}`,
            brief(reply),
            [channel],
          );
        }
      }
      if (judged === 0) {
        throw new NotExercised(
          `no call of ${tools.map((t) => t.name).join(', ')} with minimal arguments was answered with a result that is not an error`,
        );
      }
    },
  },
  {
    id: 'tool-server.tools.name-format',
    clause: 'MCP 2025-11-25 tools, Tool Names',
    description:
      'Every listed tool name has 1 to 128 characters of A-Z, a-z, 0-9, _, - and ., and no name is listed twice.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-11-25: tool names SHOULD be 1 to 128 characters long, SHOULD use only ASCII letters, digits, underscore, hyphen and dot, and SHOULD be unique within a server (guidance, all SHOULDs).',
    revisions: revisionsFrom('2025-11-25'),
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tools = await listed(ctx);
      const problems = toolNameProblems(tools.map((t) => t.name));
      if (problems.length > 0) {
        const { channel } = await ctx.toolPages();
        throw failWith(
          `tool names outside the 2025-11-25 guidance: ${problems.slice(0, 10).join('; ')}`,
          'names of 1 to 128 characters of [A-Za-z0-9_.-], each once',
          tools
            .map((t) => t.name)
            .join(', ')
            .slice(0, 600),
          [channel],
        );
      }
    },
  },
  {
    id: 'tool-server.tools.diagnostic',
    clause: 'Endpoints: Tool server, SSE transport ("Reference tool behaviours": a diagnostic tool)',
    description:
      'The diagnostic tool (when the server has one) answers one text content item, with its optional boolean verbose/detailed argument absent, false and true.',
    level: 'should',
    basis: 'spec-reference',
    rule: "The spec describes a diagnostic tool with an optional boolean verbose/detailed argument (default false) returning one text item among the *reference* server's behaviours; the suite finds it by name, so another server's health tool may answer otherwise.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = findDiagnosticTool(await ctx.tools());
      if (tool === undefined)
        throw new CheckSkipped('no diagnostic tool (by name, or a status tool with a verbose/detailed flag)');
      const policy = await ctx.policy();
      if (!policy.allowed.includes(tool))
        throw new CheckSkipped(noToolMessage({ ...policy, allowed: [] }, `the diagnostic tool ${tool.name}`));
      const channel = await ctx.main();
      const flag = verbosityArgument(tool);
      const variants: (Record<string, unknown> | undefined)[] = [
        undefined,
        ...(flag ? [{ [flag]: false }, { [flag]: true }] : []),
      ];
      for (const args of variants) {
        const params = args === undefined ? { name: tool.name } : { name: tool.name, arguments: args };
        const reply = successOf(
          channel,
          METHODS.toolsCall,
          await toolCallReply(channel, params, ctx.replyMs),
        );
        const parsed = safeParseFirstIssue(CallToolResult, reply.result);
        const content = parsed.success ? parsed.data.content : [];
        const only = content[0];
        if (
          content.length !== 1 ||
          only?.type !== 'text' ||
          typeof only.text !== 'string' ||
          only.text.trim() === ''
        ) {
          throw failWith(
            `${tool.name} ${args === undefined ? 'without arguments' : `with ${JSON.stringify(args)}`} did not answer one non-empty text item: ${brief(reply)}`,
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
    basis: 'spec-reference',
    rule: "The spec's reference diagnostic tool returns status and process information; a reference behaviour, so a warning.",
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const tool = findDiagnosticTool(await ctx.tools());
      if (tool === undefined) throw new CheckSkipped('no diagnostic tool');
      const policy = await ctx.policy();
      if (!policy.allowed.includes(tool))
        throw new CheckSkipped(noToolMessage({ ...policy, allowed: [] }, `the diagnostic tool ${tool.name}`));
      const channel = await ctx.main();
      const params = { name: tool.name, arguments: {} };
      const reply = successOf(channel, METHODS.toolsCall, await toolCallReply(channel, params, ctx.replyMs));
      const parsed = safeParseFirstIssue(CallToolResult, reply.result);
      const text = parsed.success ? resultText(parsed.data) : '';
      const status = /status|ok|healthy|running|ready|up/i.test(text);
      const proc = /pid|process|uptime|memory|rss|node|python|platform|version/i.test(text);
      if (!status || !proc) {
        throw failWith(
          `the diagnostic text tells ${status ? '' : 'no status'}${!status && !proc ? ' and ' : ''}${proc ? '' : 'nothing about the process'}: ${JSON.stringify(text.slice(0, 300))}`,
          'a status word (ok, running, healthy...) and process facts (pid, uptime, memory...)',
          text.slice(0, 600),
          [channel],
        );
      }
    },
  },
];
