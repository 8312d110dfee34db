import { type Check, CheckFailure, NotExercised } from '../../../harness/check.js';
import { clientMessages, type ToolJournalEntry } from '../../../mocks/tools/index.js';
import { acceptanceOf, revisionsFrom, STREAMABLE_HTTP_CONTENT_TYPES } from '../../../protocol/mcp/index.js';
import type { CaseResult, ToolClientCtx } from '../context.js';
import { evidenceOf, expectReached, expectTraffic } from '../expect.js';
import { excuseIfPlainCallFails, expectResultUnbroken } from '../plain-call.js';
import { CASE_BUDGET_MS, echoWithFaults, idOf } from './common.js';

/**
 * Every message the client POSTed went to the path and query the endpoint event announced
 * (the mock answers other paths 404, so a wrong URL would also show as a failed call), and
 * with `host`, to that host and port.
 */
function expectPostsToEndpoint(result: CaseResult, what: string, host?: string): void {
  // Each session's own endpoint: a client may probe the server in a session of its own first.
  const endpoints = new Map<string, ToolJournalEntry>();
  for (const e of result.journal)
    if (e.kind === 'endpoint' && !endpoints.has(e.session)) endpoints.set(e.session, e);
  const first = endpoints.values().next().value;
  if (first === undefined) {
    throw new CheckFailure(
      `${what}: the client never opened the SSE stream (GET /sse)`,
      'GET /sse with Accept: text/event-stream',
      'no stream',
      evidenceOf(result, what),
    );
  }
  const posts = clientMessages(result.journal);
  if (posts.length === 0) {
    throw new CheckFailure(
      `${what}: no POST reached the announced endpoint ${first.text}`,
      `POST ${first.text}`,
      'no POST',
      evidenceOf(result, what),
    );
  }
  const wantedBy = (endpoint: ToolJournalEntry) => {
    const announced = new URL(endpoint.text, 'http://announced.invalid');
    return `${announced.pathname}${announced.search}`;
  };
  const stray = posts.find((p) => {
    const endpoint = endpoints.get(p.session);
    return (
      endpoint === undefined ||
      p.http?.url !== wantedBy(endpoint) ||
      (host !== undefined && p.http?.headers?.host !== host)
    );
  });
  if (stray !== undefined) {
    const endpoint = endpoints.get(stray.session) ?? first;
    throw new CheckFailure(
      `${what}: a POST went to ${stray.http?.headers?.host ?? '?'}${stray.http?.url}, not to the announced endpoint ${endpoint.text}`,
      `POST ${endpoint.text}`,
      `POST http://${stray.http?.headers?.host ?? '?'}${stray.http?.url}`,
      evidenceOf(result, what, stray.seq),
    );
  }
}

/** The client opened the stream (else the endpoint checks have nothing to judge). */
function expectStreamOpened(result: CaseResult, what: string): void {
  expectReached(result, what);
}

/**
 * Why `accept` does not admit text/event-stream, or undefined when it does, with HTTP semantics
 * (acceptanceOf, as the Streamable HTTP GET rule reads it): `text/event-stream;q=0` next to the
 * all-types wildcard refuses it.
 */
function eventStreamRefusal(accept: string | undefined): string | undefined {
  const wanted = STREAMABLE_HTTP_CONTENT_TYPES.eventStream;
  if (accept === undefined) return 'no Accept header';
  const { verdict, range } = acceptanceOf(accept, wanted);
  if (verdict === 'absent') return `no media range in it covers ${wanted}`;
  if (verdict === 'refused')
    return `its most specific range covering ${wanted} (${range}) has q=0, which refuses it`;
  return undefined;
}

const RESOLVE_RULE =
  "The spec: if the announced endpoint is an absolute URL a client uses it as is; if it is a path, the client prefixes the server's base address. Every tool client.";

/** Checks of the SSE transport only: the endpoint event, POST statuses, comment frames, headers. */
export const sseChecks: Check<ToolClientCtx>[] = [
  {
    id: idOf('sse', 'endpoint.relative'),
    clause:
      "Tool server, SSE transport: if the announced endpoint is a path, the client prefixes the server's base address",
    description: "An endpoint event carrying a path is resolved against the stream URL's origin.",
    level: 'must',
    basis: 'spec',
    rule: RESOLVE_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('sse');
      expectStreamOpened(result, 'relative endpoint');
      expectPostsToEndpoint(result, 'relative endpoint');
      await excuseIfPlainCallFails(ctx, result, 'relative endpoint');
      await expectResultUnbroken(ctx, result, 'relative endpoint');
    },
  },
  {
    id: idOf('sse', 'endpoint.absolute'),
    clause: 'Tool server, SSE transport: if the announced endpoint is an absolute URL a client uses it as is',
    description: 'An endpoint event carrying an absolute URL (same origin) is used as is.',
    level: 'must',
    basis: 'spec',
    rule: RESOLVE_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'sse', { endpoint: 'absolute' });
      expectStreamOpened(result, 'absolute endpoint');
      expectPostsToEndpoint(result, 'absolute endpoint');
      await excuseIfPlainCallFails(ctx, result, 'absolute endpoint');
      await expectResultUnbroken(ctx, result, 'absolute endpoint');
    },
  },
  {
    id: idOf('sse', 'endpoint.other-origin'),
    clause: 'Tool server, SSE transport: if the announced endpoint is an absolute URL a client uses it as is',
    description:
      'An endpoint event carrying an absolute URL on another origin (another port of the same host) is used as is: the POSTs go there.',
    level: 'must',
    basis: 'spec',
    rule: `${RESOLVE_RULE} The spec makes no exception for another origin; the official SDK client and @ai-sdk/mcp refuse one on purpose, as a security choice (docs/tool-client-compatibility.md).`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'sse', { endpoint: 'other-origin' });
      const endpoint = result.journal.find((e) => e.kind === 'endpoint');
      expectStreamOpened(result, 'endpoint on another origin');
      const host = endpoint === undefined ? undefined : new URL(endpoint.text).host;
      expectPostsToEndpoint(result, 'endpoint on another origin', host);
      await excuseIfPlainCallFails(ctx, result, 'endpoint on another origin');
      await expectResultUnbroken(ctx, result, 'endpoint on another origin');
    },
  },
  {
    id: idOf('sse', 'post.status-200'),
    clause:
      'Tool server, SSE transport: POST answered HTTP 202 (a client probe treats 200 or 202 as success)',
    description: 'A POST answered 200 instead of 202 is accepted like 202.',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec says a *probe* treats 200 or 202 as success; servers answer 202, so a client that takes only 202 works with them, and this is a warning.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'sse', { postStatus: 200 });
      expectReached(result, 'POSTs answered 200');
      await excuseIfPlainCallFails(ctx, result, 'POSTs answered 200');
      await expectResultUnbroken(ctx, result, 'POSTs answered 200');
    },
  },
  {
    id: idOf('sse', 'stream.comments'),
    clause:
      'Tool-server SSE events: keep-alive is a comment frame (a line starting with a colon, then a blank line); SSE: comments are ignored',
    description:
      'Comment frames before every event and keep-alive comments in between do not disturb the call.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: servers send keep-alive comment frames (a line starting with a colon) on the stream, and the SSE format makes a client ignore comments. Every tool client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await echoWithFaults(ctx, env, 'sse', {
        commentFrames: true,
        keepAliveMs: 25,
        replyDelayMs: 120,
      });
      expectReached(result, 'comment frames');
      await excuseIfPlainCallFails(ctx, result, 'comment frames on the stream');
      await expectResultUnbroken(ctx, result, 'comment frames on the stream');
    },
  },
  {
    id: idOf('sse', 'http.accept'),
    clause: 'SSE tool-server session and Endpoints: GET /sse with header Accept: text/event-stream',
    description:
      'The GET that opens the stream carries an Accept header that admits text/event-stream: the type itself, or text/* or */* (HTTP semantics), not refused with q=0.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a client opens the session with GET /sse carrying the header Accept: text/event-stream. Every tool client. Read with HTTP semantics (RFC 9110): a header that admits text/event-stream through text/* or */* (fetch sends */* by default) carries it; one without it, or refusing it with q=0, does not.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('sse');
      const open = result.journal.find((e) => e.kind === 'stream-open');
      if (open === undefined) {
        expectTraffic(result, 'Accept header');
        throw new CheckFailure(
          'the client never opened the stream',
          'GET /sse',
          'none',
          evidenceOf(result, 'Accept header'),
        );
      }
      const accept = open.http?.headers?.accept;
      const refusal = eventStreamRefusal(accept);
      if (refusal !== undefined) {
        const shown = accept === undefined ? 'absent' : accept;
        throw new CheckFailure(
          `the stream was opened (GET ${open.http?.url ?? '/sse'}) with Accept: ${accept === undefined ? '(absent)' : JSON.stringify(accept)}: ${refusal}`,
          'Accept: text/event-stream (or a range covering it: text/*, */*; not with q=0)',
          shown,
          evidenceOf(result, 'Accept header'),
        );
      }
    },
  },
  {
    id: idOf('sse', 'http.content-type'),
    clause: 'Endpoints: Tool server, SSE transport: POST with header Content-Type: application/json',
    description: 'Every POST carries Content-Type: application/json.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a client POSTs each JSON-RPC message with the header Content-Type: application/json. Every tool client.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('sse');
      expectTraffic(result, 'Content-Type header');
      const wrong = clientMessages(result.journal).find(
        (e) => !(e.http?.headers?.['content-type'] ?? '').toLowerCase().startsWith('application/json'),
      );
      if (wrong !== undefined) {
        const type = wrong.http?.headers?.['content-type'] ?? 'absent';
        throw new CheckFailure(
          `a POST carried Content-Type: ${JSON.stringify(type)}`,
          'Content-Type: application/json',
          type,
          evidenceOf(result, 'Content-Type header', wrong.seq),
        );
      }
    },
  },
  {
    id: idOf('sse', 'protocol-version-header'),
    clause:
      'MCP lifecycle, operation (2025-06-18 and later): both parties respect the negotiated protocol version; MCP-Protocol-Version header (Streamable HTTP)',
    description:
      'A POST after initialize that carries an MCP-Protocol-Version header names the version the server answered in initialize.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-06-18 and later: both parties MUST respect the negotiated protocol version, and over HTTP the client sends it in the MCP-Protocol-Version header of every request after initialize. That header belongs to the Streamable HTTP transport, not to the HTTP+SSE transport of the spec, so a client that sends none passes (not exercised); one that sends a version other than the negotiated one warns.',
    revisions: revisionsFrom('2025-06-18'),
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('sse');
      expectTraffic(result, 'protocol version header');
      const negotiated = result.scenario.protocolVersion;
      const posts = clientMessages(result.journal).filter(
        (p) => !p.text.includes('"initialize"') && p.http?.headers?.['mcp-protocol-version'] !== undefined,
      );
      if (posts.length === 0) {
        throw new NotExercised('no POST after initialize carried an MCP-Protocol-Version header');
      }
      const wrong = posts.find((p) => p.http?.headers?.['mcp-protocol-version'] !== negotiated);
      if (wrong !== undefined) {
        throw new CheckFailure(
          `the server answered protocolVersion ${negotiated} in initialize, and a later POST carried MCP-Protocol-Version: ${wrong.http?.headers?.['mcp-protocol-version']}`,
          `MCP-Protocol-Version: ${negotiated}`,
          `MCP-Protocol-Version: ${wrong.http?.headers?.['mcp-protocol-version']}`,
          evidenceOf(result, 'protocol version header', wrong.seq),
        );
      }
    },
  },
];
