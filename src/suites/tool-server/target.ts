import { UsageError } from '../../harness/errors.js';
import {
  DEFAULT_REVISION,
  isProtocolRevision,
  type ProtocolRevision,
  transportRevisionMismatch,
} from '../../protocol/mcp/index.js';
import { redactCommand, redactUrl } from '../../recording/tools/redact-target.js';
import type { TargetOptionSpec } from '../registry.js';
import {
  PROTOCOL_TARGET_OPTION,
  parseStartTimeout,
  protocolArgs,
  protocolOption,
  startTimeoutArgs,
} from '../target-options.js';
import { offeredProtocolVersion } from './offered-version.js';
import { parseHeaders, shownHeader, type TargetHeader } from './target-headers.js';

/**
 * Which tools of the server the suite may call (`--call-tools`): `all`, `none`, or the
 * names given. Absent: the default policy of call-policy.ts (the reference and mock
 * servers' own tools, and tools annotated read-only).
 */
export type CallToolsOption = 'all' | 'none' | readonly string[];

/** How the harness reaches a tool server (the target contract in the README, tool-server). */
export type ToolServerTarget = (
  | { readonly kind: 'stdio'; readonly command: string }
  | {
      readonly kind: 'sse' | 'http';
      readonly url: string;
      readonly start?: string;
      /** `--header`: sent with every request to the server (authorization, say). */
      readonly headers?: readonly TargetHeader[];
    }
) & {
  readonly callTools?: CallToolsOption;
  /** `--protocol`: the MCP revision the suite asks for and judges by (absent: see offered-version.ts). */
  readonly protocol?: ProtocolRevision;
  /**
   * `--start-timeout`: how long the server may take to start: over stdio, each new server
   * process before its first reply is due (default 5 s, on top of the reply budget); with
   * `--start`, until the URL answers (default 15 s).
   */
  readonly startTimeoutMs?: number;
};

/** The revision a run speaks to this target: `--protocol`, else the transport's default. */
export function revisionOf(target: ToolServerTarget): ProtocolRevision {
  const offered = offeredProtocolVersion(target.kind, target.protocol);
  return isProtocolRevision(offered) ? offered : DEFAULT_REVISION;
}

/** Why the target's `--protocol` cannot be spoken over its transport, or undefined. */
export function revisionMismatchOf(target: ToolServerTarget): string | undefined {
  if (target.protocol === undefined) return undefined;
  const why = transportRevisionMismatch(target.kind, target.protocol);
  return why === undefined ? undefined : `--${target.kind} with --protocol ${target.protocol}: ${why}`;
}

export const TOOL_SERVER_TARGET_OPTIONS: readonly TargetOptionSpec[] = [
  {
    flags: '--stdio <cmd>',
    description:
      'tool-server command, run by sh -c in its own process group: newline-delimited JSON-RPC on its stdin/stdout',
  },
  {
    flags: '--sse <url>',
    description: 'stream endpoint of an SSE tool server (e.g. http://127.0.0.1:8000/sse)',
  },
  {
    flags: '--http <url>',
    description:
      'endpoint of a Streamable HTTP tool server (MCP 2025-03-26 and later, e.g. http://127.0.0.1:8000/mcp)',
  },
  {
    flags: '--start <cmd>',
    description:
      'with --sse or --http: command that starts the server first; the harness waits (bounded) until it answers',
  },
  {
    flags: '--call-tools <which>',
    description:
      "which tools of the server the checks may call: all, none, or NAME,NAME... (default: the tools of wirecheck's reference and mock servers and tools annotated readOnlyHint: true; never any other tool)",
  },
  {
    flags: '--start-timeout <seconds>',
    description:
      'how long the server may take to start: with --stdio, each server process before its first reply is due (default 5); with --start, until the URL answers (default 15). For a server fetched or built at start (npx, uvx, a container)',
  },
  {
    flags: '--header <header>',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the user types, expanded by parseHeaders
      "with --sse or --http: 'Name: value' sent with every request to the server, e.g. 'Authorization: Bearer ${MCP_TOKEN}' (${VAR} is read from the environment, so the secret stays out of reports); repeatable",
    repeatable: true,
  },
  PROTOCOL_TARGET_OPTION,
];

/** `--call-tools` as given: `all`, `none`, or a comma-separated list of tool names. */
export function parseCallTools(value: unknown): CallToolsOption | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError('--call-tools takes all, none, or a comma-separated list of tool names');
  }
  const text = value.trim();
  if (text === 'all' || text === 'none') return text;
  const names = text.split(',').map((n) => n.trim());
  if (names.some((n) => n === ''))
    throw new UsageError(`--call-tools has an empty name: ${JSON.stringify(value)}`);
  // `none,echo` must not read as "echo": the option guards calls that may change things.
  const keyword = names.find((n) => n === 'all' || n === 'none');
  if (keyword !== undefined) {
    throw new UsageError(
      `--call-tools ${JSON.stringify(value)}: ${keyword} stands alone (all, none, or a list of tool names)`,
    );
  }
  return names;
}

/** The target from commander's option values (`--stdio`, `--sse`, `--http`, `--start`, `--call-tools`). */
export function toolServerTargetFromOptions(opts: Record<string, unknown>): ToolServerTarget {
  const target = targetOfOptions(opts);
  const mismatch = revisionMismatchOf(target);
  if (mismatch !== undefined) throw new UsageError(mismatch);
  return target;
}

function targetOfOptions(opts: Record<string, unknown>): ToolServerTarget {
  const { stdio, sse, http, start } = opts;
  const headers = parseHeaders(opts.header);
  const callTools = parseCallTools(opts.callTools);
  const protocol = protocolOption(opts);
  const startTimeoutMs = parseStartTimeout(opts.startTimeout);
  const policy = {
    ...(callTools === undefined ? {} : { callTools }),
    ...(protocol === undefined ? {} : { protocol }),
    ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }),
  };
  const given = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
  const count = [stdio, sse, http].filter(given).length;
  if (count > 1) throw new UsageError('give one of --stdio, --sse or --http');
  if (given(stdio)) {
    if (start !== undefined) throw new UsageError('--start goes with --sse or --http only');
    if (headers !== undefined)
      throw new UsageError('--header goes with --sse or --http only: stdio has no HTTP');
    return { kind: 'stdio', command: stdio, ...policy };
  }
  const [kind, flag, url] = given(sse)
    ? (['sse', '--sse', sse] as const)
    : given(http)
      ? (['http', '--http', http] as const)
      : [undefined, undefined, undefined];
  if (kind !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`${flag} needs an http(s) URL, got ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UsageError(`${flag} needs an http(s) URL, got ${JSON.stringify(url)}`);
    }
    if (start !== undefined && !given(start)) throw new UsageError('--start needs a command');
    return {
      kind,
      url,
      ...(given(start) ? { start } : {}),
      ...(headers === undefined ? {} : { headers }),
      ...policy,
    };
  }
  throw new UsageError(
    'the tool-server suite needs --stdio "<command>", --sse <url> or --http <url> [--start "<command>"]',
  );
}

function describeCallTools(c: CallToolsOption | undefined): string {
  if (c === undefined) return '';
  return ` (--call-tools ${typeof c === 'string' ? c : c.join(',')})`;
}

/** The target as reports show it: the credentials written into its command or URL redacted (target-secrets.ts). */
export function describeTarget(target: ToolServerTarget): string {
  const startTimeout =
    target.startTimeoutMs === undefined ? '' : ` (--start-timeout ${target.startTimeoutMs / 1000})`;
  const policy = `${describeCallTools(target.callTools)}${target.protocol === undefined ? '' : ` (MCP ${target.protocol})`}${startTimeout}`;
  if (target.kind === 'stdio') return `stdio: ${redactCommand(target.command)}${policy}`;
  const name = target.kind === 'http' ? 'streamable http' : 'sse';
  const headers =
    target.headers === undefined || target.headers.length === 0
      ? ''
      : ` (--header ${target.headers.map((h) => h.name).join(', ')})`;
  const url = redactUrl(target.url);
  return target.start === undefined
    ? `${name}: ${url}${policy}${headers}`
    : `${name}: ${url} (started by ${redactCommand(target.start)})${policy}${headers}`;
}

/** The target options of a reproduce line, redacted as describeTarget. */
export function targetArgs(target: ToolServerTarget): string[] {
  const c = target.callTools;
  const policy = [
    ...(c === undefined ? [] : ['--call-tools', typeof c === 'string' ? c : c.join(',')]),
    ...protocolArgs(target.protocol),
    ...startTimeoutArgs(target.startTimeoutMs),
  ];
  if (target.kind === 'stdio') return ['--stdio', redactCommand(target.command), ...policy];
  const flag = target.kind === 'http' ? '--http' : '--sse';
  const url = redactUrl(target.url);
  const base = target.start === undefined ? [flag, url] : [flag, url, '--start', redactCommand(target.start)];
  const headers = (target.headers ?? []).flatMap((h) => ['--header', shownHeader(h)]);
  return [...base, ...headers, ...policy];
}
