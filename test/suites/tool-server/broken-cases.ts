// The broken test servers (servers/<name>.mjs) and their expected verdicts, shared by
// broken.test.ts and determinism.test.ts.

import { type ExpectedVerdicts, expectedStatuses } from '../../broken-verdicts.js';

/** A broken test server (servers/<name>.mjs: the conforming one with one flaw), its verdicts and neighbours it still passes. */
export interface BrokenCase extends ExpectedVerdicts {
  readonly server: string;
  readonly transport: 'stdio' | 'sse';
  readonly flaw: string;
}

export const CASES: BrokenCase[] = [
  {
    server: 'banner',
    transport: 'stdio',
    flaw: 'prints a banner on stdout',
    fails: ['stdio.stdout-purity'],
    passes: ['ping.answered'],
  },
  {
    server: 'no-tools-capability',
    transport: 'stdio',
    flaw: 'has no tools capability',
    fails: ['initialize.result-shape'],
    passes: ['initialize.protocol-version'],
  },
  {
    server: 'other-version',
    transport: 'stdio',
    flaw: 'answers 2025-06-18 to a 2024-11-05 client',
    fails: ['initialize.protocol-version'],
    passes: ['initialize.result-shape'],
  },
  {
    server: 'echo-version',
    transport: 'stdio',
    flaw: 'answers whatever version the client asks for, even one it cannot support',
    fails: ['initialize.unsupported-version'],
    passes: ['initialize.protocol-version'],
  },
  {
    server: 'silent-before-initialize',
    transport: 'stdio',
    flaw: 'leaves requests before initialize unanswered',
    fails: ['lifecycle.before-initialize'],
    passes: ['ping.answered'],
  },
  {
    server: 'wedge-on-string-id',
    transport: 'stdio',
    flaw: 'never answers a request with a string id, nor anything after it on that session',
    fails: ['jsonrpc.string-id'],
    // Judged on a session of their own: the session the string id wedged is not handed on.
    passes: ['tools.list-shape', 'tools.call-result-shape', 'jsonrpc.unknown-method', 'ping.answered'],
  },
  {
    server: 'serves-before-initialize',
    transport: 'stdio',
    flaw: 'serves a request sent before initialize instead of refusing it',
    warns: ['lifecycle.before-initialize-refused'],
    passes: ['lifecycle.before-initialize'],
  },
  {
    server: 'defer-before-initialize',
    transport: 'stdio',
    flaw: 'holds a request sent before initialize until initialize comes, then serves it (allowed: MCP states no rule for it)',
    warns: ['lifecycle.before-initialize-refused'],
    passes: ['lifecycle.before-initialize', 'ping.answered'],
  },
  {
    server: 'refuse-before-initialize',
    transport: 'sse',
    flaw: 'refuses the POST of a request before initialize with HTTP 400 (allowed: the message was not taken)',
    passes: ['lifecycle.before-initialize', 'ping.answered'],
  },
  {
    server: 'exit-before-initialize',
    transport: 'stdio',
    flaw: 'answers a request before initialize with an error and then exits (no rule says the session must outlive it)',
    skips: ['lifecycle.before-initialize'],
    passes: ['ping.answered'],
  },
  {
    server: 'no-ping',
    transport: 'stdio',
    flaw: 'does not know ping',
    fails: ['ping.answered'],
    passes: ['jsonrpc.unknown-method'],
  },
  {
    server: 'unknown-method-result',
    transport: 'stdio',
    flaw: 'answers unknown methods with a result',
    fails: ['jsonrpc.unknown-method'],
    passes: ['ping.answered'],
  },
  {
    server: 'unknown-method-invalid-params',
    transport: 'stdio',
    flaw: 'answers unknown methods with -32602, as the Python SDK does',
    warns: ['jsonrpc.unknown-method-code'],
    passes: ['jsonrpc.unknown-method'],
  },
  {
    server: 'reply-to-notifications',
    transport: 'stdio',
    flaw: 'answers notifications with an error',
    fails: ['jsonrpc.notification-no-reply'],
    passes: ['jsonrpc.unknown-method'],
  },
  {
    server: 'string-ids-as-numbers',
    transport: 'stdio',
    flaw: 'answers a digits-only string id with a number',
    fails: ['jsonrpc.string-id'],
    passes: ['ping.answered'],
  },
  {
    server: 'bad-schema',
    transport: 'stdio',
    flaw: 'lists input schemas without type object',
    fails: ['tools.list-shape'],
    // Its one tool is malformed, so no other check reads it (listed-tools.ts): nothing to judge.
    skips: ['tools.property-schema'],
  },
  {
    server: 'bad-cursor',
    transport: 'stdio',
    flaw: 'refuses the nextCursor it gave',
    warns: ['tools.list-pages'],
    passes: ['tools.list-shape'],
  },
  {
    server: 'silent-on-cursor',
    transport: 'stdio',
    flaw: 'never answers tools/list with the nextCursor it gave',
    fails: ['tools.list-shape'],
    // It names the tools the run did not call, which needs the whole list: it only ever skips,
    // a list that cannot be read included (the checks that need it fail for that, once).
    skips: ['tools.not-called'],
    passes: ['ping.answered'],
  },
  {
    server: 'no-description',
    transport: 'stdio',
    flaw: 'lists properties without descriptions',
    warns: ['tools.property-schema'],
    passes: ['tools.list-shape', 'tools.defaults-valid'],
  },
  {
    server: 'bad-default',
    transport: 'stdio',
    flaw: 'gives a boolean property a string default',
    warns: ['tools.defaults-valid'],
    passes: ['tools.property-schema'],
  },
  {
    server: 'bad-call-result',
    transport: 'stdio',
    flaw: 'answers a text item with a number as text',
    fails: ['tools.call-result-shape', 'tools.generated-arguments'],
    passes: ['tools.unknown-tool-rejected'],
  },
  {
    server: 'lookup-only',
    transport: 'stdio',
    flaw: 'has one tool, which refuses the made-up id of a call with an error (allowed: no flaw)',
    // No call was answered with a result, no property has a default: nothing to judge, and
    // nothing failed for it.
    skips: ['tools.call-result-shape', 'tools.defaults-valid'],
    // Refused with {} and without arguments in the same words: absent counted as empty.
    passes: ['tools.unknown-tool-rejected', 'tools.generated-arguments', 'tools.arguments-absent'],
  },
  {
    server: 'lookup-only-arguments-required',
    transport: 'stdio',
    // Refused with {} and without arguments, in other words: the two refusals show nothing
    // about absent arguments, so the check must not pass it.
    flaw: 'has one tool needing an argument, and refuses a call without arguments',
    skips: ['tools.arguments-absent'],
    passes: ['tools.unknown-tool-rejected'],
  },
  {
    server: 'arguments-required',
    transport: 'stdio',
    flaw: 'refuses a call without arguments',
    fails: ['tools.arguments-absent'],
    passes: ['tools.call-result-shape'],
  },
  {
    server: 'invalid-args-as-result',
    transport: 'stdio',
    flaw: 'answers invalid arguments with an isError result',
    warns: ['tools.invalid-params'],
    passes: ['tools.call-result-shape'],
  },
  {
    server: 'unknown-tool-success',
    transport: 'stdio',
    flaw: 'answers an unknown tool as a success',
    fails: ['tools.unknown-tool-rejected'],
    warns: ['tools.unknown-tool-error'],
    passes: ['tools.call-result-shape'],
  },
  {
    server: 'unknown-tool-unnamed',
    transport: 'stdio',
    flaw: 'refuses an unknown tool without naming it',
    fails: ['tools.unknown-tool-rejected'],
    passes: ['tools.unknown-tool-error'],
  },
  {
    server: 'unknown-tool-is-error',
    transport: 'stdio',
    flaw: 'answers an unknown tool with isError: true (as the SDK does)',
    warns: ['tools.unknown-tool-error'],
    passes: ['tools.unknown-tool-rejected'],
  },
  {
    server: 'bad-diagnostic',
    transport: 'stdio',
    flaw: 'answers the diagnostic tool with several items',
    warns: ['tools.diagnostic'],
    passes: ['tools.call-result-shape'],
  },
  {
    server: 'diagnostic-hello',
    transport: 'stdio',
    flaw: 'answers the diagnostic tool with one text item that tells no status and nothing of the process ("hello")',
    warns: ['tools.diagnostic-content'],
    passes: ['tools.diagnostic', 'tools.call-result-shape'],
  },
  {
    server: 'slow-on-negative',
    transport: 'stdio',
    flaw: 'answers add with a negative number 4 s late (past the 1.5 s reply budget), anything else at once',
    warns: ['tools.generated-arguments-answered'],
    // A late answer is no lost one: the must check passes what it saw answered.
    passes: ['tools.generated-arguments', 'tools.call-result-shape'],
  },
  {
    server: 'crash-on-negative',
    transport: 'stdio',
    flaw: 'exits when add gets a negative number',
    fails: ['tools.generated-arguments'],
    // The calls stopped at the crash: whether every call is answered in time is not shown.
    skips: ['tools.generated-arguments-answered'],
    passes: ['tools.call-result-shape'],
  },
  {
    server: 'crash-on-malformed',
    transport: 'stdio',
    flaw: 'exits on unparseable JSON (no rule forbids it)',
    warns: ['malformed.survives'],
    // The wrong envelope goes to a new process, which answers it.
    passes: ['ping.answered', 'malformed.invalid-request'],
  },
  {
    server: 'silent-on-malformed',
    transport: 'stdio',
    flaw: 'ignores malformed input (as the SDK does on stdio)',
    warns: ['malformed.parse-error', 'malformed.invalid-request'],
    passes: ['malformed.survives'],
  },
  {
    server: 'no-exit-on-eof',
    transport: 'stdio',
    flaw: 'keeps running after its stdin closed',
    warns: ['stdio.exit-on-eof'],
    passes: ['stdio.stdout-purity'],
  },
  {
    server: 'crash-on-malformed',
    transport: 'sse',
    flaw: 'exits on an unparseable POST body',
    warns: ['malformed.survives'],
    passes: ['sse.reply-on-stream'],
  },
  {
    server: 'not-event-stream-after-initialize',
    transport: 'sse',
    flaw: 'serves streams as text/event-stream until a session was initialized, and every later GET as 200 text/plain (the frames unchanged)',
    fails: ['sse.stream-response'],
    passes: ['sse.endpoint-first', 'sse.reply-on-stream'],
  },
  {
    server: 'reply-in-body-after-initialize',
    transport: 'sse',
    flaw: 'answers initialize on the stream, and every later request in the POST response body',
    fails: ['sse.reply-on-stream'],
    passes: ['sse.post-accepted', 'sse.endpoint-first'],
  },
  {
    server: 'response-event-after-initialize',
    transport: 'sse',
    flaw: 'answers initialize as event message, and every later reply as event response',
    fails: ['sse.reply-on-stream'],
    passes: ['sse.post-accepted', 'sse.post-202', 'sse.endpoint-first'],
  },
  {
    server: 'endpoint-late',
    transport: 'sse',
    flaw: 'sends a message event before the endpoint event',
    fails: ['sse.endpoint-first'],
    passes: ['sse.stream-response'],
  },
  {
    server: 'post-200',
    transport: 'sse',
    flaw: 'accepts POSTs with 200',
    warns: ['sse.post-202'],
    passes: ['sse.post-accepted', 'sse.reply-on-stream'],
  },
  {
    server: 'no-400',
    transport: 'sse',
    flaw: 'accepts POSTs for sessions it does not have, and drops them (the spec states the refusal for its reference server only)',
    warns: ['sse.unknown-session-refused', 'sse.closed-session-refused', 'sse.no-session-400'],
    passes: ['sse.no-cross-session-reply'],
  },
  {
    server: 'keep-closed-session',
    transport: 'sse',
    flaw: 'accepts POSTs for a closed session, and drops them (the spec states the refusal for its reference server only)',
    warns: ['sse.closed-session-refused'],
    // It shows no calls in flight: the abort that closed-session judges is not seen.
    skips: ['sse.closed-session'],
    passes: ['sse.unknown-session-refused'],
  },
  {
    server: 'slow-tool-kept',
    transport: 'sse',
    flaw: 'keeps a call of its slow tool running after the stream of its session closed',
    fails: ['sse.closed-session'],
    passes: ['sse.closed-session-refused', 'sse.unknown-session-refused'],
  },
  {
    server: 'forget-closed-on-write',
    transport: 'sse',
    flaw: 'forgets a closed session only when a reply finds its stream gone (allowed: the spec sets no deadline)',
    fails: [],
    passes: ['sse.closed-session-refused', 'sse.no-cross-session-reply'],
  },
  {
    server: 'forget-closed-on-second-write',
    transport: 'sse',
    flaw: 'forgets a closed session only at the second reply written to its gone stream (allowed: over TCP the first write to a closed stream may succeed)',
    fails: [],
    passes: ['sse.closed-session-refused', 'sse.no-cross-session-reply'],
  },
  {
    server: 'route-unknown-to-first',
    transport: 'sse',
    flaw: 'routes POSTs for unknown sessions to the first stream',
    fails: ['sse.no-cross-session-reply'],
    warns: ['sse.unknown-session-refused', 'sse.no-session-400'],
    passes: ['sse.reply-on-stream'],
  },
  {
    server: 'one-client',
    transport: 'sse',
    flaw: 'refuses (409) the POSTs of every session but the oldest open one',
    fails: ['sse.post-accepted'],
    // The refused POST held the request: no reply was due on the stream.
    skips: ['sse.reply-on-stream'],
    passes: [],
  },
  {
    server: 'broadcast',
    transport: 'sse',
    flaw: 'sends every reply to every open stream',
    fails: ['sse.no-cross-session-reply', 'sse.concurrent-routing'],
    passes: ['sse.reply-on-stream'],
  },
  {
    server: 'wrong-session',
    transport: 'sse',
    flaw: 'sends every reply to the newest stream',
    fails: ['sse.concurrent-routing', 'sse.session-model'],
    passes: ['sse.endpoint-first'],
  },
  {
    server: 'no-session-header',
    transport: 'sse',
    flaw: 'ignores the Mcp-Session-Id header (allowed: the query parameter carries the session)',
    passes: ['sse.session-header', 'sse.unknown-session-refused'],
  },
  {
    server: 'lose-header-only',
    transport: 'sse',
    flaw: 'accepts a POST naming its session only in Mcp-Session-Id, and drops it',
    fails: ['sse.session-header'],
    passes: ['sse.unknown-session-refused'],
  },
  {
    server: 'no-accel-header',
    transport: 'sse',
    flaw: 'sends no X-Accel-Buffering header',
    warns: ['sse.no-buffering-header'],
    passes: ['sse.stream-response'],
  },
  {
    server: 'reuse-session-id',
    transport: 'sse',
    flaw: "hands a reconnecting client the closed session's id (allowed: the spec lets a server resume it; MCP's later SHOULD warns)",
    fails: [],
    warns: ['sse.reconnect-fresh-id'],
    passes: ['sse.reconnect-new-session', 'sse.concurrent-routing'],
  },
  {
    server: 'deaf-after-close',
    transport: 'sse',
    flaw: 'leaves every session opened after a stream closed unanswered (its one transport shut down with the first session that ended)',
    fails: ['sse.reconnect-new-session'],
    passes: ['sse.reconnect-fresh-id', 'sse.endpoint-first'],
  },
  {
    server: 'no-keep-alive',
    transport: 'sse',
    flaw: 'sends no keep-alive on an idle stream',
    fails: ['sse.keep-alive'],
    passes: ['sse.stream-response'],
  },
];

export function expected(c: BrokenCase): Record<string, string> {
  return expectedStatuses(c, 'tool-server');
}
