// The broken clients of the tool-client suite and the verdicts each must get; shared by
// broken.test.ts (one run each) and determinism.test.ts (five runs with one seed).

import { shellQuote } from '../../../src/harness/run-suite.js';
import type { ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import type { ToolTransport } from '../../../src/suites/tool-client/index.js';
import { type ExpectedVerdicts, expectedStatuses } from '../../broken-verdicts.js';

export const P = 'tool-client.';

/** A broken client (clients/<name>.mjs) and the checks of its rule, plus a neighbour it must still pass. */
export interface BrokenClientCase extends ExpectedVerdicts {
  readonly client: string;
  readonly flaw: string;
  /** `--protocol` of the run (default the spec's 2024-11-05): the revision whose rule is broken. */
  readonly protocol?: ProtocolRevision;
  /** Arguments after the client's file (revisions.mjs: the version it asks for, and which it names after). */
  readonly args?: string;
}

/** The transports a case is run over: Streamable HTTP only when one of its checks is an http one. */
export function transportsOfCase(c: BrokenClientCase): ToolTransport[] {
  const http = idsOf(c).some((id) => id.startsWith(`${P}http.`));
  return http ? ['stdio', 'sse', 'http'] : ['stdio', 'sse'];
}

export const CASES: readonly BrokenClientCase[] = [
  {
    client: 'newer-protocol-version',
    flaw: 'asks for protocol version 2025-06-18 in initialize',
    fails: ['stdio.initialize.protocol-version', 'sse.initialize.protocol-version'],
    passes: ['stdio.initialize.client-info'],
  },
  {
    client: 'no-client-info',
    flaw: 'sends no clientInfo',
    fails: ['stdio.initialize.client-info', 'sse.initialize.client-info', 'http.initialize.client-info'],
    passes: ['stdio.initialize.capabilities', 'http.initialize.capabilities'],
  },
  {
    client: 'no-capabilities',
    flaw: 'leaves capabilities out of initialize',
    fails: ['stdio.initialize.capabilities', 'sse.initialize.capabilities', 'http.initialize.capabilities'],
    passes: ['stdio.initialize.client-info', 'http.initialize.client-info'],
  },
  {
    client: 'no-initialized',
    flaw: 'never sends notifications/initialized',
    fails: ['stdio.lifecycle.initialized-first', 'sse.lifecycle.initialized-first'],
    // Nothing was sent before the result, and nothing after: a pass would be a pass on nothing.
    skips: ['stdio.lifecycle.initialize-awaited', 'sse.lifecycle.initialize-awaited'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'no-initialized-never-calls',
    flaw: 'gives up after the initialize result without notifications/initialized or a call',
    fails: ['stdio.result.printed'],
    // It never began normal operation: no order to judge (it passed initialized-first before).
    skips: ['stdio.lifecycle.initialized-first', 'sse.lifecycle.initialized-first'],
    passes: ['stdio.initialize.client-info'],
  },
  {
    client: 'call-before-initialized',
    flaw: 'sends tools/call before notifications/initialized',
    fails: ['sse.lifecycle.initialized-first'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'same-id',
    flaw: 'uses id 1 for every request',
    fails: ['stdio.ids.unique', 'sse.ids.unique', 'http.ids.unique'],
    passes: ['stdio.result.printed', 'http.ids.integer'],
  },
  {
    client: 'string-ids',
    flaw: 'uses string ids',
    warns: ['stdio.ids.integer', 'sse.ids.integer', 'http.ids.integer'],
    passes: ['stdio.ids.unique', 'http.ids.unique'],
  },
  {
    client: 'ignore-ping',
    flaw: "ignores the server's ping",
    fails: ['stdio.ping.answered', 'sse.ping.answered', 'http.ping.answered'],
    passes: ['sse.result.printed', 'http.result.printed'],
  },
  {
    client: 'ping-clobbers',
    flaw: 'answers the ping, then prints an empty result for the call pending',
    fails: ['stdio.ping.answered', 'sse.ping.answered'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'endpoint-as-is',
    flaw: 'does not resolve a relative endpoint',
    fails: ['sse.endpoint.relative'],
    passes: ['sse.endpoint.absolute'],
  },
  {
    client: 'always-prefix',
    flaw: 'prefixes the origin to an absolute endpoint',
    fails: ['sse.endpoint.absolute'],
    passes: ['sse.endpoint.relative'],
  },
  {
    client: 'session-header-only',
    flaw: 'POSTs to the endpoint without its sessionId query, the session in the Mcp-Session-Id header only',
    fails: ['sse.endpoint.relative', 'sse.endpoint.absolute', 'sse.endpoint.other-origin'],
    // The mock takes the session from either, as the spec carries it: only the endpoint rule is broken.
    passes: ['sse.result.printed', 'sse.initialize.client-info'],
  },
  {
    client: 'only-202',
    flaw: 'takes a POST answered 200 as a failure',
    warns: ['sse.post.status-200'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'crash-on-comment',
    flaw: 'crashes on an SSE comment',
    fails: ['sse.stream.comments'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'fail-on-unknown-notification',
    flaw: 'fails on an unknown notification',
    warns: [
      'stdio.notifications.unknown-tolerated',
      'sse.notifications.unknown-tolerated',
      'http.notifications.unknown-tolerated',
    ],
    passes: ['stdio.result.printed', 'http.result.printed'],
  },
  {
    client: 'wrong-result',
    flaw: 'prints the text instead of the result object',
    fails: ['stdio.result.printed', 'sse.result.printed', 'sse.result.round-trip'],
    passes: ['stdio.arguments.as-given', 'sse.arguments.as-given'],
  },
  {
    client: 'drop-arguments',
    flaw: 'sends empty arguments',
    fails: [
      'stdio.arguments.as-given',
      'sse.arguments.as-given',
      'http.arguments.as-given',
      'sse.result.round-trip',
      'http.result.round-trip',
    ],
    passes: ['stdio.arguments.absent', 'http.arguments.absent'],
  },
  {
    client: 'exit-zero-on-error',
    flaw: 'exits 0 after a failure',
    fails: [
      'stdio.errors.jsonrpc-error',
      'sse.errors.jsonrpc-error',
      'http.errors.jsonrpc-error',
      'stdio.errors.unknown-tool',
      'sse.errors.unknown-tool',
      'http.errors.unknown-tool',
      'sse.errors.stream-closed',
      'http.errors.stream-closed',
    ],
    passes: ['stdio.result.printed', 'http.result.printed'],
  },
  {
    client: 'hang-on-close',
    // Over SSE the next POST is answered 400 (no active stream), which it does report.
    flaw: 'keeps waiting when the server process goes away',
    fails: ['stdio.errors.stream-closed'],
    passes: ['stdio.errors.jsonrpc-error'],
  },
  {
    client: 'non-json-as-text',
    flaw: 'takes a non-JSON stdout line as the result',
    fails: ['stdio.non-json-stdout.no-wrong-result'],
    warns: ['stdio.non-json-stdout.error'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'skip-non-json',
    flaw: 'skips non-JSON stdout lines',
    warns: ['stdio.non-json-stdout.error'],
    passes: ['stdio.non-json-stdout.no-wrong-result'],
  },
  {
    client: 'kill-first',
    flaw: 'signals the stdio server before closing its stdin',
    warns: ['stdio.shutdown-order'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'kill-server',
    // Go's exec.CommandContext and Rust's Child::kill end a server so; seen through the relay only.
    flaw: 'kills the stdio server (SIGKILL) without closing its stdin',
    warns: ['stdio.shutdown-order'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'no-accept',
    flaw: 'opens the stream with no Accept header at all',
    fails: ['sse.http.accept'],
    passes: ['sse.http.content-type'],
  },
  {
    client: 'sse-accept',
    args: shellQuote('application/json'),
    flaw: 'opens the stream with Accept: application/json',
    fails: ['sse.http.accept'],
    passes: ['sse.http.content-type'],
  },
  {
    client: 'sse-accept',
    args: shellQuote('text/event-stream;q=0, */*'),
    flaw: 'opens the stream with an Accept header that refuses text/event-stream (q=0) and takes anything else',
    fails: ['sse.http.accept'],
    passes: ['sse.http.content-type'],
  },
  {
    client: 'sse-accept',
    args: shellQuote('*/*'),
    // fetch's own default: under HTTP semantics it admits text/event-stream.
    flaw: 'opens the stream with Accept: */* (no flaw)',
    passes: ['sse.http.accept', 'sse.endpoint.relative'],
  },
  {
    client: 'sse-accept',
    args: shellQuote('application/json;q=0.9, text/*;q=0.5'),
    flaw: 'opens the stream with Accept: application/json;q=0.9, text/*;q=0.5 (no flaw)',
    passes: ['sse.http.accept'],
  },
  {
    client: 'text-plain-post',
    flaw: 'POSTs with Content-Type: text/plain',
    fails: ['sse.http.content-type'],
    passes: ['sse.http.accept'],
  },
  {
    client: 'same-origin-only',
    flaw: 'refuses an endpoint on another origin (as the official SDK does)',
    fails: ['sse.endpoint.other-origin'],
    passes: ['sse.endpoint.absolute'],
  },
  {
    client: 'ignore-version',
    flaw: 'carries on whatever protocol version the server answers',
    warns: [
      'stdio.initialize.version-checked',
      'sse.initialize.version-checked',
      'http.initialize.version-checked',
    ],
    passes: ['stdio.initialize.protocol-version'],
  },
  {
    client: 'no-await',
    flaw: 'sends initialized and tools/call before the initialize result',
    fails: [
      'stdio.lifecycle.initialize-awaited',
      'sse.lifecycle.initialize-awaited',
      'http.lifecycle.initialize-awaited',
    ],
    warns: ['stdio.lifecycle.requests-after-initialize-result'],
    // Over HTTP its early messages name no session (the id comes with the result): still after initialize.
    passes: ['stdio.lifecycle.initialized-first', 'http.lifecycle.initialized-first'],
  },
  {
    client: 'pipeline-list',
    // MCP 2024-11-05: the client SHOULD NOT send requests other than pings before the server
    // has responded to the initialize request; its initialized notification comes after the result.
    flaw: 'pipelines tools/list before the initialize result, and sends initialized after it',
    warns: [
      'stdio.lifecycle.requests-after-initialize-result',
      'sse.lifecycle.requests-after-initialize-result',
      'http.lifecycle.requests-after-initialize-result',
    ],
    passes: [
      'stdio.lifecycle.initialize-awaited',
      'sse.lifecycle.initialize-awaited',
      'http.lifecycle.initialize-awaited',
      'stdio.lifecycle.initialized-first',
      'sse.lifecycle.initialized-first',
      'stdio.result.printed',
    ],
  },
  {
    client: 'initialized-early',
    flaw: 'sends initialized before the initialize result, and no other request early',
    fails: [
      'stdio.lifecycle.initialize-awaited',
      'sse.lifecycle.initialize-awaited',
      'http.lifecycle.initialize-awaited',
    ],
    passes: [
      'stdio.lifecycle.requests-after-initialize-result',
      'sse.lifecycle.requests-after-initialize-result',
      'stdio.lifecycle.initialized-first',
    ],
  },
  {
    client: 'fail-on-cancel',
    flaw: 'fails its call on a stray notifications/cancelled',
    warns: [
      'stdio.notifications.cancel-progress-tolerated',
      'sse.notifications.cancel-progress-tolerated',
      'http.notifications.cancel-progress-tolerated',
    ],
    passes: ['stdio.notifications.unknown-tolerated', 'http.notifications.unknown-tolerated'],
  },
  {
    client: 'impatient',
    flaw: 'gives up on a reply after 500 ms',
    warns: ['stdio.result.slow-reply', 'sse.result.slow-reply', 'http.result.slow-reply'],
    passes: ['stdio.result.printed', 'http.result.printed'],
  },
  {
    client: 'timeout-as-result',
    flaw: 'gives up on a reply after 500 ms and prints that as an isError result, exit 0',
    warns: ['stdio.result.slow-reply'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'http-accept-json-only',
    flaw: 'POSTs with Accept: application/json only (Streamable HTTP)',
    fails: ['http.accept'],
    passes: ['http.session-id'],
  },
  {
    client: 'http-no-session-id',
    flaw: 'never sends Mcp-Session-Id (Streamable HTTP)',
    fails: ['http.session-id'],
    passes: ['http.accept'],
  },
  {
    client: 'http-no-reinitialize',
    flaw: 'takes a 404 of its session as a failure instead of starting a new session',
    fails: ['http.session-expired.reinitialize'],
    passes: ['http.answer.event-stream'],
  },
  {
    client: 'http-no-protocol-version',
    flaw: 'asks for 2025-06-18 and never sends MCP-Protocol-Version (a 2025-06-18 run)',
    fails: ['http.protocol-version-header'],
    passes: ['http.session-id'],
    protocol: '2025-06-18',
  },
  {
    client: 'http-newer-version',
    flaw: 'asks for 2025-06-18 and sends the negotiated MCP-Protocol-Version (no flaw over http; a 2025-06-18 run)',
    passes: ['http.protocol-version-header', 'http.protocol-version-header.negotiated'],
    protocol: '2025-06-18',
  },
  {
    client: 'revisions',
    args: '2025-03-26 negotiated',
    flaw: 'speaks every revision but asks for 2025-03-26 in a 2025-06-18 run (Streamable HTTP)',
    warns: ['http.initialize.offers-revision'],
    passes: ['http.protocol-version-header.negotiated', 'http.result.printed'],
    protocol: '2025-06-18',
  },
  {
    client: 'revisions',
    args: '2025-11-25 requested',
    flaw: 'names the version it asked for (2025-11-25) in MCP-Protocol-Version, not the negotiated 2025-06-18 (Streamable HTTP)',
    warns: ['http.protocol-version-header.negotiated'],
    passes: ['http.protocol-version-header', 'http.initialize.offers-revision'],
    protocol: '2025-06-18',
  },
  {
    client: 'http-json-only',
    flaw: 'cannot read an event-stream answer',
    fails: ['http.answer.event-stream', 'http.result.printed'],
    // It cannot finish the plain call (answered with an event stream): a check whose case it
    // does not finish for that reason judges nothing of its own rule.
    skips: ['http.session.deleted', 'http.notifications.unknown-tolerated', 'http.ping.answered'],
    passes: ['http.answer.json'],
  },
  {
    client: 'never-calls',
    flaw: 'gives up after initialize, before calling the tool',
    fails: ['stdio.result.printed'],
    // Stopping after an unsupported version says nothing of a version check in a client that
    // stops there anyway; the non-JSON line comes with the call's reply, which it never asks for.
    skips: [
      'stdio.initialize.version-checked',
      'sse.initialize.version-checked',
      'stdio.non-json-stdout.no-wrong-result',
      'stdio.non-json-stdout.error',
    ],
    passes: ['stdio.initialize.client-info'],
  },
  {
    client: 'http-sse-only',
    flaw: 'cannot read a JSON answer',
    fails: ['http.answer.json'],
    passes: ['http.answer.event-stream'],
  },
  {
    client: 'http-no-resume',
    // Before 2025-11-25 resuming is the client's choice: there, not resuming is not exercised.
    flaw: 'gives up when an answer stream ends early instead of resuming it (a 2025-11-25 run)',
    warns: ['http.stream.resumed'],
    passes: ['http.answer.event-stream'],
    protocol: '2025-11-25',
  },
  {
    client: 'http-wrong-last-event-id',
    flaw: 'resumes a dropped answer stream with a Last-Event-ID the server never sent',
    warns: ['http.stream.resumed'],
    passes: ['http.answer.event-stream'],
  },
  {
    client: 'http-ignore-retry',
    flaw: 'resumes a dropped answer stream after 100 ms whatever its retry field asks (a 2025-11-25 run)',
    fails: ['http.stream.retry-respected'],
    passes: ['http.stream.resumed'],
    protocol: '2025-11-25',
  },
  {
    client: 'discover-first',
    flaw: 'sends server/discover before initialize and gives up when it is refused',
    fails: ['stdio.lifecycle.initialized-first', 'http.lifecycle.initialized-first'],
    // What follows initialize was never reached: not exercised, not failed; the scripted
    // failures were never given, so the client's own error does not pass them either.
    skips: [
      'stdio.initialize.client-info',
      'stdio.result.printed',
      'sse.arguments.as-given',
      'http.result.printed',
      'http.ping.answered',
      'stdio.errors.jsonrpc-error',
      'sse.errors.unknown-tool',
      // Its one request per session leaves no id to repeat (it passed on that before).
      'stdio.ids.unique',
      // No initialize, so no result to await: initialized-first fails the session, once (these failed before).
      'stdio.lifecycle.initialize-awaited',
      'http.lifecycle.initialize-awaited',
    ],
    passes: ['stdio.ids.integer'],
  },
  {
    client: 'discover-first-sometimes',
    flaw: 'initializes in the basic case but, for a call without arguments, sends server/discover first and gives up',
    // The basic case initialized, so the lifecycle check passes: the call without arguments is failed, not excused.
    fails: ['stdio.arguments.absent', 'sse.arguments.absent', 'http.arguments.absent'],
    passes: ['stdio.lifecycle.initialized-first', 'stdio.result.printed'],
  },
  {
    client: 'only-notifies',
    flaw: 'sends notifications/initialized, no initialize, and gives up',
    fails: ['stdio.lifecycle.initialized-first', 'sse.lifecycle.initialized-first'],
    // The notification came before any initialize: initialized-first fails that, once; with no
    // initialize there is no result it could have awaited (this failed before).
    skips: ['stdio.lifecycle.initialize-awaited', 'sse.lifecycle.initialize-awaited'],
    passes: ['sse.http.accept'],
  },
  {
    client: 'http-no-delete',
    flaw: 'ends without DELETE for its session',
    warns: ['http.session.deleted'],
    passes: ['http.session-id'],
  },
];

/** The checks a case runs (`--only`). */
export function idsOf(c: BrokenClientCase): string[] {
  return Object.keys(expected(c));
}

/** id -> the status the case must get. */
export function expected(c: BrokenClientCase): Record<string, string> {
  return expectedStatuses(c, 'tool-client');
}
