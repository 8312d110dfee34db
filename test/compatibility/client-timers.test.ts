import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { STALL_ALLOWANCE_MS } from '../../src/suites/messages-client/checks/stream-errors.js';
import { RATE_LIMIT_RETRY_AFTER_S } from '../../src/suites/messages-client/context.js';
import { RETRY_RESPECTED_MS } from '../../src/suites/tool-client/checks/streamable-http.js';
import { SLOW_REPLY_MS } from '../../src/suites/tool-client/context.js';

// A case that makes a client wait about as long as one of the client's own timers gets a
// verdict that moves with the machine's load: replies delayed exactly 1000 ms raced
// @ai-sdk/mcp's 1000 ms discovery timeout and turned a CI run red. The timers of the
// third-party clients the compatibility tables judge are read from the installed packages,
// so an upgrade that moves one next to a delay of ours fails here, not now and then in CI.

/** Timers at least this factor apart cannot swap order under load. */
const APART = 1.25;

interface ClientTimer {
  readonly suite: 'tool-client' | 'messages-client';
  readonly what: string;
  /** The installed file, from the repository root. */
  readonly file: string;
  /** Its value is the first group (a JavaScript number literal). */
  readonly pattern: RegExp;
  /** Milliseconds per unit of the value (1000 where the package counts seconds). */
  readonly msPerUnit?: number;
}

const TIMERS: readonly ClientTimer[] = [
  {
    suite: 'tool-client',
    what: "@ai-sdk/mcp: its first request's timeout (server/discover)",
    file: 'node_modules/@ai-sdk/mcp/dist/index.js',
    pattern: /const DEFAULT_PROTOCOL_DISCOVERY_TIMEOUT = ([\d.e]+);/,
  },
  {
    suite: 'tool-client',
    what: '@ai-sdk/mcp: its first reconnection delay (Streamable HTTP)',
    file: 'node_modules/@ai-sdk/mcp/dist/index.js',
    pattern: /initialReconnectionDelay: ([\d.e]+)/,
  },
  {
    suite: 'tool-client',
    what: 'official MCP SDK: its request timeout',
    file: 'node_modules/@modelcontextprotocol/sdk/dist/esm/shared/protocol.js',
    pattern: /DEFAULT_REQUEST_TIMEOUT_MSEC = ([\d.e]+);/,
  },
  {
    suite: 'tool-client',
    what: 'official MCP SDK: its first reconnection delay (Streamable HTTP)',
    file: 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js',
    pattern: /initialReconnectionDelay: ([\d.e]+)/,
  },
  {
    suite: 'messages-client',
    what: '@anthropic-ai/sdk: its first retry delay',
    file: 'node_modules/@anthropic-ai/sdk/client.mjs',
    pattern: /const initialRetryDelay = ([\d.e]+);/,
    msPerUnit: 1000,
  },
  {
    suite: 'messages-client',
    what: '@anthropic-ai/sdk: its request timeout',
    file: 'node_modules/@anthropic-ai/sdk/client.mjs',
    pattern: /DEFAULT_TIMEOUT = ([\d.e]+);/,
  },
  {
    suite: 'messages-client',
    what: 'ai: its first retry delay',
    file: 'node_modules/ai/dist/index.js',
    pattern: /initialDelayInMs = ([\d.e]+), backoffFactor/,
  },
];

/** How long our cases make a client wait, per suite. */
const DELAYS: Readonly<Record<ClientTimer['suite'], Readonly<Record<string, number>>>> = {
  'tool-client': {
    'every reply of the slow case (SLOW_REPLY_MS)': SLOW_REPLY_MS,
    'the retry hint of the dropped answer stream (RETRY_RESPECTED_MS)': RETRY_RESPECTED_MS,
  },
  'messages-client': {
    "the rate-limit case's retry-after (RATE_LIMIT_RETRY_AFTER_S)": RATE_LIMIT_RETRY_AFTER_S * 1000,
    'how long a stalled stream may keep the client waiting (STALL_ALLOWANCE_MS)': STALL_ALLOWANCE_MS,
  },
};

function timerMs(timer: ClientTimer): number | undefined {
  const found = timer.pattern.exec(readFileSync(timer.file, 'utf8'))?.[1];
  return found === undefined ? undefined : Number(found) * (timer.msPerUnit ?? 1);
}

/** Each delay and same-suite timer closer than APART, said as one line. */
function tooClose(delays: typeof DELAYS): string[] {
  const close: string[] = [];
  for (const timer of TIMERS) {
    const ms = timerMs(timer) ?? 0;
    for (const [delay, delayMs] of Object.entries(delays[timer.suite])) {
      if (Math.max(ms, delayMs) / Math.min(ms, delayMs) < APART)
        close.push(`${delay}: ${delayMs} ms; ${timer.what}: ${ms} ms`);
    }
  }
  return close;
}

describe("the delays of our cases sit apart from the third-party clients' own timers", () => {
  test('every timer is found in the installed package (a package that renamed one is read again by hand)', () => {
    const missing = TIMERS.filter((t) => !((timerMs(t) ?? 0) > 0)).map((t) => `${t.what} in ${t.file}`);
    expect(missing).toEqual([]);
  });

  test(`no delay is within a factor of ${APART} of a timer of the same suite's clients`, () => {
    expect(tooClose(DELAYS)).toEqual([]);
  });

  test('the guard sees the race that made CI red: slow replies of exactly 1000 ms', () => {
    const before = { ...DELAYS, 'tool-client': { 'slow replies': 1000 } };
    expect(tooClose(before)).toContain(
      "slow replies: 1000 ms; @ai-sdk/mcp: its first request's timeout (server/discover): 1000 ms",
    );
  });
});
