import { UsageError } from '../../harness/errors.js';
import type { TargetOptionSpec } from '../registry.js';

/** How the harness reaches a tool server (TARGETS.md, tool-server). */
export type ToolServerTarget =
  | { readonly kind: 'stdio'; readonly command: string }
  | { readonly kind: 'sse'; readonly url: string; readonly start?: string };

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
    flags: '--start <cmd>',
    description:
      'with --sse: command that starts the server first; the harness waits (bounded) until it answers',
  },
];

/** The target from commander's option values (`--stdio`, `--sse`, `--start`). */
export function toolServerTargetFromOptions(opts: Record<string, unknown>): ToolServerTarget {
  const { stdio, sse, start } = opts;
  const given = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
  if (given(stdio) && given(sse)) throw new UsageError('give either --stdio or --sse, not both');
  if (given(stdio)) {
    if (start !== undefined) throw new UsageError('--start goes with --sse only');
    return { kind: 'stdio', command: stdio };
  }
  if (given(sse)) {
    let url: URL;
    try {
      url = new URL(sse);
    } catch {
      throw new UsageError(`--sse needs an http(s) URL, got ${JSON.stringify(sse)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`--sse needs an http(s) URL, got ${JSON.stringify(sse)}`);
    }
    if (start !== undefined && !given(start)) throw new UsageError('--start needs a command');
    return given(start) ? { kind: 'sse', url: sse, start } : { kind: 'sse', url: sse };
  }
  throw new UsageError(
    'the tool-server suite needs --stdio "<command>" or --sse <url> [--start "<command>"]',
  );
}

export function describeTarget(target: ToolServerTarget): string {
  if (target.kind === 'stdio') return `stdio: ${target.command}`;
  return target.start === undefined
    ? `sse: ${target.url}`
    : `sse: ${target.url} (started by ${target.start})`;
}

export function targetArgs(target: ToolServerTarget): string[] {
  if (target.kind === 'stdio') return ['--stdio', target.command];
  return target.start === undefined ? ['--sse', target.url] : ['--sse', target.url, '--start', target.start];
}
