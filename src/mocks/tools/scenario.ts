import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { JsonRpcErrorObject } from '../../protocol/jsonrpc/index.js';
import {
  CallToolResult,
  defaultRevisionFor,
  Implementation,
  type McpTransportName,
  Tool,
} from '../../protocol/mcp/index.js';

/** What the mock answers to one `tools/call`: a result, or a JSON-RPC error. */
export const CallOutcome = z.union([
  z.strictObject({ result: CallToolResult }),
  z.strictObject({ error: JsonRpcErrorObject }),
]);
export type CallOutcome = z.infer<typeof CallOutcome>;

/**
 * Faults the mock injects, each one a way a conforming server (or the network between) may
 * behave that a client must cope with, or a way a broken server misbehaves.
 */
export const ToolFaults = z.strictObject({
  /**
   * SSE: the `endpoint` event carries a path (`relative`, default), a whole URL (`absolute`),
   * or a whole URL on another origin (`other-origin`: a second port of the same host, which
   * the listening mock opens for POSTs; spec: a client uses an absolute endpoint as is).
   */
  endpoint: z.enum(['relative', 'absolute', 'other-origin']).default('relative'),
  /** SSE: status of an accepted POST; 202 is the spec's, 200 is what probes also accept. */
  postStatus: z.union([z.literal(202), z.literal(200)]).default(202),
  /**
   * Before answering `tools/call`, send the client a JSON-RPC `ping` request and wait (at most
   * `pingWaitMs`) for its answer (MCP: the receiver MUST respond promptly).
   */
  pingFirst: z.boolean().default(false),
  pingWaitMs: z.number().int().nonnegative().max(60_000).default(3_000),
  /** SSE: a comment frame (`: keep-alive`) every this many ms; absent: none. */
  keepAliveMs: z.number().int().positive().max(3_600_000).optional(),
  /** SSE: a comment frame before every event. */
  commentFrames: z.boolean().default(false),
  /** Unsolicited notifications with unknown method names sent before every reply. */
  notifications: z.number().int().nonnegative().max(100).default(0),
  /**
   * Before the `tools/call` reply, send `notifications/progress` (for the call's
   * progressToken, or a made-up one) and `notifications/cancelled` naming the call's id: a
   * client must not break on either (MCP: unknown or stray ones are ignored).
   */
  lifecycleNotifications: z.boolean().default(false),
  /** Wait this long before every reply. */
  replyDelayMs: z.number().int().nonnegative().max(600_000).default(0),
  /** stdio: this line (not JSON) is written on stdout just before the `tools/call` reply. */
  nonJsonStdout: z.string().optional(),
  /**
   * Close the session after this many JSON-RPC messages were sent: SSE ends the stream (a
   * later POST gets 400), stdio exits. 0 closes before the first one.
   */
  closeStreamAfter: z.number().int().nonnegative().optional(),
  /**
   * Streamable HTTP: how a POST carrying requests is answered: an event stream (`sse`,
   * default, as the official SDK's server does) or one `application/json` body (`json`).
   */
  httpAnswer: z.enum(['sse', 'json']).default('sse'),
  /**
   * Streamable HTTP, `sse` answers: the answer stream of the first `tools/call` carries one
   * event with only an id (and `retry: dropRetryMs`), then ends before the reply; the reply
   * waits for a GET with that id as `Last-Event-ID` (resumption).
   */
  dropAnswerStream: z.boolean().default(false),
  /**
   * Streamable HTTP, with `dropAnswerStream`: the `retry` field (ms) of that id-only event, the
   * wait the client MUST respect before reconnecting (2025-11-25). The GET that resumes the
   * stream is journaled with the ms since the drop (`resume`).
   */
  dropRetryMs: z.number().int().nonnegative().max(600_000).default(100),
  /**
   * Streamable HTTP: what a GET with `Last-Event-ID` naming an event of a dropped answer stream
   * gets: the events of that stream after the id (`replay`, default), or 400 (`refused`: a server
   * that keeps nothing to replay, resumption being a MAY; the reply of the dropped stream is lost).
   * An id the mock never sent on that stream is 400 either way.
   */
  resumption: z.enum(['replay', 'refused']).default('replay'),
  /**
   * Streamable HTTP: the first session ends when its first request after `initialize`
   * arrives, which is answered 404; the client must initialize a new session (MUST).
   */
  expireSession: z.boolean().default(false),
  /**
   * Streamable HTTP: a request of a session without `MCP-Protocol-Version` (or with a version
   * other than the negotiated one) is answered 400 (2025-06-18: a server MUST answer an
   * invalid or unsupported one with 400; a missing one it may take as 2025-03-26).
   */
  requireProtocolVersion: z.boolean().default(false),
  /** Streamable HTTP: the GET stream is offered (`open`, default) or refused with 405. */
  getStream: z.enum(['open', 'refused']).default('open'),
});
export type ToolFaults = z.infer<typeof ToolFaults>;
export type ToolFaultsInput = z.input<typeof ToolFaults>;

const DEFAULT_TOOL: Tool = {
  name: 'echo',
  description: 'Returns its arguments as JSON text.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'text to echo' } },
  },
};

/**
 * Everything a mock tool server does, as data (loadable from a JSON file): the tools it lists,
 * what each call returns (default: an echo of the arguments as JSON text), and its faults.
 */
export const ToolScenario = z.strictObject({
  tools: z.array(Tool).default([DEFAULT_TOOL]),
  /** Outcome per tool name; a listed tool without one echoes its arguments. */
  calls: z.record(z.string(), CallOutcome).default({}),
  serverInfo: Implementation.default({ name: 'wirecheck-mock-tools', version: '1.0.0' }),
  /**
   * The version the mock answers `initialize` with (MCP: the server's own, whatever was asked).
   * Absent: its transport's default (defaultRevisionFor: 2024-11-05 over stdio and SSE, 2025-03-26
   * over Streamable HTTP); toolScenario(input, transport) fills it in.
   */
  protocolVersion: z.string().optional(),
  faults: ToolFaults.default(ToolFaults.parse({})),
  /** Seed of every random choice (session ids, notification payloads). */
  seed: z.number().int().nonnegative().default(0),
});
export type ToolScenario = z.infer<typeof ToolScenario>;
export type ToolScenarioInput = z.input<typeof ToolScenario>;

/** A scenario whose protocolVersion is settled. */
export type ResolvedToolScenario = ToolScenario & { readonly protocolVersion: string };

/**
 * A scenario from a partial description for a mock over `transport`, its protocolVersion
 * settled; throws a ZodError naming the bad field.
 */
export function toolScenario(
  input: ToolScenario | ToolScenarioInput = {},
  transport: McpTransportName = 'stdio',
): ResolvedToolScenario {
  const scenario = ToolScenario.parse(input);
  return { ...scenario, protocolVersion: scenario.protocolVersion ?? defaultRevisionFor(transport) };
}

export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
}

/** Read and validate a scenario JSON file; errors name the file and the bad field. */
export async function loadToolScenario(path: string): Promise<ToolScenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ScenarioFileError(`cannot read the scenario file ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ScenarioFileError(`the scenario file ${path} is not JSON: ${(e as Error).message}`);
  }
  const parsed = ToolScenario.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    throw new ScenarioFileError(`the scenario file ${path} is invalid at ${where}: ${issue?.message}`);
  }
  return parsed.data;
}

/** What a call of `name` with `args` returns under `scenario`. */
export function outcomeOfCall(
  scenario: ToolScenario,
  name: string,
  args: Record<string, unknown> | undefined,
): CallOutcome {
  // Own keys only: a client calling "toString" calls an unknown tool, not Object's method.
  if (Object.hasOwn(scenario.calls, name)) return scenario.calls[name]!;
  if (!scenario.tools.some((t) => t.name === name)) {
    // Spec "Errors": a call for an unknown tool is an error whose message names the tool.
    return { error: { code: -32602, message: `Unknown tool: ${name}` } };
  }
  return { result: { content: [{ type: 'text', text: JSON.stringify(args ?? {}) }] } };
}
