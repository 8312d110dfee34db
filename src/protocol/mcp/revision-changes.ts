import type { ProtocolRevision } from './revisions.js';

/**
 * What changed between MCP revisions that a tools-only server or client can see on the
 * wire, each with the text it comes from (the revision's "Key Changes" page, or the
 * revision's own page where the changelog names the change without the rule). Only what was
 * read in those texts is here; docs/mcp-revisions.md is generated from this list
 * (`npm run docs:checks`), with the checks that cover each change.
 */
export interface RevisionChange {
  /** Stable id, e.g. `2025-06-18.structured-output`. */
  readonly id: string;
  /** The revision that made the change. */
  readonly revision: ProtocolRevision;
  readonly kind: 'added' | 'removed' | 'changed';
  /** One line: what changed, in our words. */
  readonly summary: string;
  /** Where it shows: the tool server's answers, the client's requests, or the HTTP transport. */
  readonly seenIn: 'server' | 'client' | 'both' | 'transport';
  /** The text it comes from, quoted, and where. */
  readonly source: { readonly url: string; readonly text: string };
  /**
   * The ids of the checks that judge it (`wirecheck list`); empty when no check does, with
   * `uncovered` saying why.
   */
  readonly checks: readonly string[];
  readonly uncovered?: string;
}

const CHANGELOG = (r: ProtocolRevision) => `https://modelcontextprotocol.io/specification/${r}/changelog`;

export const REVISION_CHANGES: readonly RevisionChange[] = [
  {
    id: '2025-03-26.streamable-http',
    revision: '2025-03-26',
    kind: 'changed',
    summary:
      'Streamable HTTP (one endpoint; POST answered with JSON or an SSE stream; optional GET stream; Mcp-Session-Id) replaces the HTTP+SSE transport, which stays in the text only for backwards compatibility.',
    seenIn: 'transport',
    source: {
      url: CHANGELOG('2025-03-26'),
      text: 'Replaced the previous HTTP+SSE transport with a more flexible Streamable HTTP transport (PR #206)',
    },
    checks: [
      'tool-server.http.session-id',
      'tool-server.http.notification-202',
      'tool-server.http.request-answer',
      'tool-server.http.answer-stream-ends',
      'tool-server.http.session-required',
      'tool-server.http.unknown-session-404',
      'tool-server.http.deleted-session-404',
      'tool-server.http.get-stream',
      'tool-server.http.origin-refused',
      'tool-server.http.no-cross-session-reply',
      'tool-server.http.session-model',
      'tool-server.http.event-ids-unique',
      'tool-server.http.resume-same-stream',
      'tool-server.http.resume-replays-after',
      'tool-client.http.accept',
      'tool-client.http.session-id',
      'tool-client.http.session-expired.reinitialize',
      'tool-client.http.answer.event-stream',
      'tool-client.http.answer.json',
      'tool-client.http.stream.resumed',
      'tool-client.http.session.deleted',
    ],
  },
  {
    id: '2025-03-26.batching',
    revision: '2025-03-26',
    kind: 'added',
    summary: 'JSON-RPC batches: an implementation MAY send them and MUST accept them.',
    seenIn: 'both',
    source: {
      url: 'https://modelcontextprotocol.io/specification/2025-03-26/basic',
      text: 'MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.',
    },
    checks: ['tool-server.jsonrpc.batch-answered'],
  },
  {
    id: '2025-03-26.tool-annotations',
    revision: '2025-03-26',
    kind: 'added',
    summary:
      'Tools may carry `annotations` (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title): hints, never a failure when present or absent.',
    seenIn: 'server',
    source: {
      url: CHANGELOG('2025-03-26'),
      text: 'Added comprehensive tool annotations for better describing tool behavior, like whether it is read-only or destructive (PR #185)',
    },
    checks: ['tool-server.tools.list-shape'],
  },
  {
    id: '2025-03-26.audio-content',
    revision: '2025-03-26',
    kind: 'added',
    summary: 'A tool result may hold `audio` content items beside text and image.',
    seenIn: 'both',
    source: {
      url: CHANGELOG('2025-03-26'),
      text: 'Added support for audio data, joining the existing text and image content types',
    },
    checks: ['tool-server.tools.call-result-shape'],
  },
  {
    id: '2025-03-26.progress-message',
    revision: '2025-03-26',
    kind: 'added',
    summary: '`notifications/progress` may carry a `message`.',
    seenIn: 'both',
    source: {
      url: CHANGELOG('2025-03-26'),
      text: 'Added `message` field to `ProgressNotification` to provide descriptive status updates',
    },
    checks: [],
    uncovered: 'no check judges progress notifications (an extra field is never a failure).',
  },
  {
    id: '2025-06-18.batching-removed',
    revision: '2025-06-18',
    kind: 'removed',
    summary:
      'JSON-RPC batching is gone: a server of 2025-06-18 or later need not accept a batch, so no check asks it to.',
    seenIn: 'both',
    source: { url: CHANGELOG('2025-06-18'), text: 'Remove support for JSON-RPC batching (PR #416)' },
    checks: ['tool-server.jsonrpc.batch-answered'],
  },
  {
    id: '2025-06-18.structured-output',
    revision: '2025-06-18',
    kind: 'added',
    summary:
      'A tool may declare an `outputSchema`; its results then carry `structuredContent` that conforms to it (MUST).',
    seenIn: 'server',
    source: {
      url: 'https://modelcontextprotocol.io/specification/2025-06-18/server/tools',
      text: 'Tools may also provide an output schema for validation of structured results. If an output schema is provided: Servers MUST provide structured results that conform to this schema. Clients SHOULD validate structured results against this schema.',
    },
    checks: ['tool-server.tools.structured-content'],
  },
  {
    id: '2025-06-18.resource-links',
    revision: '2025-06-18',
    kind: 'added',
    summary: 'A tool result may hold `resource_link` content items.',
    seenIn: 'both',
    source: {
      url: CHANGELOG('2025-06-18'),
      text: 'Add support for resource links in tool call results. (PR #603)',
    },
    checks: ['tool-server.tools.call-result-shape'],
  },
  {
    id: '2025-06-18.protocol-version-header',
    revision: '2025-06-18',
    kind: 'added',
    summary:
      'Over HTTP the client sends the negotiated version in an `MCP-Protocol-Version` header on every request after initialize.',
    seenIn: 'transport',
    source: {
      url: CHANGELOG('2025-06-18'),
      text: 'Require negotiated protocol version to be specified via MCP-Protocol-Version header in subsequent requests when using HTTP (PR #548).',
    },
    checks: [
      'tool-client.http.protocol-version-header',
      'tool-client.http.protocol-version-header.negotiated',
      'tool-server.http.protocol-version-header',
      'tool-client.sse.protocol-version-header',
    ],
  },
  {
    id: '2025-06-18.title',
    revision: '2025-06-18',
    kind: 'added',
    summary: 'Tools (and Implementation) may carry a human-friendly `title`; `name` stays the identifier.',
    seenIn: 'both',
    source: {
      url: CHANGELOG('2025-06-18'),
      text: 'Add title field for human-friendly display names, so that name can be used as a programmatic identifier (PR #663)',
    },
    checks: ['tool-server.tools.list-shape', 'tool-server.initialize.result-shape'],
  },
  {
    id: '2025-06-18.lifecycle-must',
    revision: '2025-06-18',
    kind: 'changed',
    summary:
      'The operation phase turns SHOULD into MUST: both sides respect the negotiated protocol version.',
    seenIn: 'both',
    source: { url: CHANGELOG('2025-06-18'), text: 'Change SHOULD to MUST in Lifecycle Operation' },
    checks: [
      'tool-server.initialize.requested-revision',
      'tool-server.initialize.supported-version-echoed',
      'tool-client.sse.protocol-version-header',
    ],
  },
  {
    id: '2025-11-25.icons',
    revision: '2025-11-25',
    kind: 'added',
    summary: 'Tools (and serverInfo) may carry `icons`.',
    seenIn: 'server',
    source: {
      url: CHANGELOG('2025-11-25'),
      text: 'Allow servers to expose icons as additional metadata for tools, resources, resource templates, and prompts (SEP-973).',
    },
    checks: ['tool-server.tools.list-shape', 'tool-server.initialize.result-shape'],
  },
  {
    id: '2025-11-25.tool-names',
    revision: '2025-11-25',
    kind: 'added',
    summary:
      'Tool names SHOULD be 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`, and unique within a server.',
    seenIn: 'server',
    source: {
      url: 'https://modelcontextprotocol.io/specification/2025-11-25/server/tools',
      text: 'Tool names SHOULD be between 1 and 128 characters in length (inclusive). ... The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.) ... Tool names SHOULD be unique within a server.',
    },
    checks: ['tool-server.tools.name-format'],
  },
  {
    id: '2025-11-25.origin-403',
    revision: '2025-11-25',
    kind: 'changed',
    summary:
      'A Streamable HTTP server answers a request whose Origin header is present and invalid with 403 Forbidden (before: any refusal of it validated Origin).',
    seenIn: 'transport',
    source: {
      url: CHANGELOG('2025-11-25'),
      text: 'Clarify that servers must respond with HTTP 403 Forbidden for invalid Origin headers in Streamable HTTP transport. (PR #1439)',
    },
    checks: ['tool-server.http.origin-refused'],
  },
  {
    id: '2025-11-25.input-validation-errors',
    revision: '2025-11-25',
    kind: 'changed',
    summary:
      'Invalid tool arguments are answered as a tool execution error (a result with isError: true), no longer as a JSON-RPC protocol error.',
    seenIn: 'server',
    source: {
      url: CHANGELOG('2025-11-25'),
      text: 'Clarify that input validation errors should be returned as Tool Execution Errors rather than Protocol Errors to enable model self-correction (SEP-1303).',
    },
    checks: ['tool-server.tools.invalid-params', 'tool-server.tools.invalid-arguments-result'],
  },
  {
    id: '2025-11-25.sse-polling',
    revision: '2025-11-25',
    kind: 'added',
    summary:
      'Streamable HTTP: a server may close an SSE stream after an event with an id (priming the client to resume with Last-Event-ID), sending a `retry` field first; the client should then reconnect, and must wait that many ms first.',
    seenIn: 'transport',
    source: {
      url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports',
      text: 'If the server does close the connection prior to terminating the SSE stream, it SHOULD send an SSE event with a standard retry field before closing the connection. The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect.',
    },
    checks: [
      'tool-client.http.stream.retry-respected',
      // The client SHOULD then poll (reconnect): before this revision, resuming is its choice.
      'tool-client.http.stream.resumed',
      'tool-server.http.request-answer',
      'tool-server.http.answer-before-close',
    ],
  },
  {
    id: '2025-11-25.tasks',
    revision: '2025-11-25',
    kind: 'added',
    summary: 'Experimental tasks (task-augmented requests such as tools/call, polled for their result).',
    seenIn: 'both',
    source: {
      url: CHANGELOG('2025-11-25'),
      text: 'Add experimental support for tasks to enable tracking durable requests with polling and deferred result retrieval (SEP-1686).',
    },
    checks: [],
    uncovered:
      'optional and experimental: a server uses tasks only for a client that declares the capability, which wirecheck never does.',
  },
  {
    id: '2025-11-25.implementation-description',
    revision: '2025-11-25',
    kind: 'added',
    summary: 'clientInfo and serverInfo may carry a `description`.',
    seenIn: 'both',
    source: {
      url: CHANGELOG('2025-11-25'),
      text: 'Add optional `description` field to `Implementation` interface to align with MCP registry server.json format and provide human-readable context during initialization.',
    },
    checks: ['tool-server.initialize.result-shape'],
  },
  {
    id: '2025-11-25.json-schema-2020-12',
    revision: '2025-11-25',
    kind: 'changed',
    summary:
      'JSON Schema 2020-12 is the default dialect of inputSchema and outputSchema when no `$schema` is given.',
    seenIn: 'server',
    source: {
      url: CHANGELOG('2025-11-25'),
      text: 'Establish JSON Schema 2020-12 as the default dialect for MCP schema definitions (SEP-1613).',
    },
    checks: [],
    uncovered:
      'the checks read only `type`, `properties`, `required`, `enum` and `default` of a schema, which mean the same in draft-07 and 2020-12.',
  },
];
