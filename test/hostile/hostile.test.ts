import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  freePort,
  type RunningTarget,
  startHttpTarget,
  startSseTarget,
  targetCommand,
  writeForever,
} from './targets.js';

/*
 * Hostile targets against the real CLI (issue 12, item 3; issue 13, item 5): each run is
 * `wirecheck ...` in a child process whose peak memory is measured (measure.mjs writes
 * process.resourceUsage().maxRSS). wirecheck must end with a documented exit status (1: the
 * target broke the protocol; 2: it could not be tested at all; never 134 or an uncaught
 * error), write its report, name the limit that was hit, and stay far below MAX_RSS_MIB
 * while the target sends without end.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MEASURE = fileURLToPath(new URL('./measure.mjs', import.meta.url));
const READ_MORE_THAN = fileURLToPath(new URL('./read-more-than.mjs', import.meta.url));
/** The bound every hostile run is held to: generous, and far below what the targets send. */
const MAX_RSS_MIB = 400;
const ONE_GB = 1_000_000_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  maxRssMiB: number;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-hostile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let runs = 0;

/** Run a node script with arguments; kill it (by pid) past `timeoutMs`. Output kept up to 1 MiB each. */
function runNode(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<Omit<Run, 'maxRssMiB'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      if (stdout.length < 1 << 20) stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 1 << 20) stderr += c.toString('utf8');
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
    const limitMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args.join(' ')} did not end within ${limitMs} ms:\n${stdout}\n${stderr}`));
    }, limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** `wirecheck ARGS` with its peak memory. */
async function wirecheck(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<Run> {
  const rssFile = join(dir, `maxrss-${++runs}`);
  const run = await runNode([MEASURE, ...args], {
    ...options,
    env: { ...options.env, WIRECHECK_MAXRSS_FILE: rssFile },
  });
  const maxRssMiB = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) / 1024 : Number.NaN;
  return { ...run, maxRssMiB };
}

interface CheckResult {
  id: string;
  status: string;
  message: string;
}

/** `test tool-server` of one check against a target; returns the run and the check's result from results.json. */
async function toolServer(
  target: string[],
  {
    env,
    only = 'tool-server.ping.answered',
    checkId = only,
    timeoutMs,
  }: { env?: Record<string, string>; only?: string; checkId?: string; timeoutMs?: number } = {},
): Promise<{ run: Run; check: CheckResult | undefined }> {
  const reportDir = join(dir, `report-${runs + 1}`);
  const run = await wirecheck(
    ['test', 'tool-server', ...target, '--only', only, '--seed', '1', '--report-dir', reportDir],
    { ...(env === undefined ? {} : { env }), ...(timeoutMs === undefined ? {} : { timeoutMs }) },
  );
  const resultsFile = join(reportDir, 'results.json');
  expect(existsSync(resultsFile), `results.json written (stderr: ${run.stderr.slice(-2000)})`).toBe(true);
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as { checks: CheckResult[] };
  return { run, check: results.checks.find((c) => c.id === checkId) };
}

/**
 * The hostile targets of `test tool-server` answer initialize first (`--after-initialize`):
 * the suite needs one initialized session before any check, and a server hostile from its
 * first reply is unavailable (exit 2; tested below).
 */
function stdioTarget(name: string, ...args: string[]): string[] {
  return ['--stdio', targetCommand(name, '--transport', 'stdio', '--after-initialize', ...args)];
}

async function sseTarget(name: string): Promise<string[]> {
  const port = await freePort();
  return [
    '--sse',
    `http://127.0.0.1:${port}/sse`,
    '--start',
    targetCommand(name, '--transport', 'sse', '--port', String(port), '--after-initialize'),
  ];
}

/** A Streamable HTTP hostile target (`--answer json` for JSON answers, event streams by default). */
async function httpTarget(name: string, ...args: string[]): Promise<string[]> {
  const port = await freePort();
  return [
    '--http',
    `http://127.0.0.1:${port}/mcp`,
    '--start',
    targetCommand(name, '--transport', 'http', '--port', String(port), ...args),
  ];
}

/** The hostile target `name` over `transport`, turning hostile after initialize. */
async function targetOver(transport: 'stdio' | 'sse' | 'http', name: string): Promise<string[]> {
  if (transport === 'stdio') return stdioTarget(name);
  return transport === 'sse' ? sseTarget(name) : httpTarget(name, '--after-initialize');
}

/** `test tool-server` against a target the preflight refuses: the run and results.json. */
async function unavailableToolServer(target: string[]): Promise<{ run: Run; results: unknown }> {
  const reportDir = join(dir, `report-${runs + 1}`);
  const run = await wirecheck(['test', 'tool-server', ...target, '--seed', '1', '--report-dir', reportDir]);
  const resultsFile = join(reportDir, 'results.json');
  expect(existsSync(resultsFile), `results.json written (stderr: ${run.stderr.slice(-2000)})`).toBe(true);
  return { run, results: JSON.parse(readFileSync(resultsFile, 'utf8')) };
}

function expectUnavailable(run: Run, results: unknown, why: string): void {
  expect(run.signal).toBeNull();
  expect(run.code, run.stderr.slice(-2000)).toBe(2);
  expect(run.stderr).toContain(why);
  expect(JSON.stringify(results)).toContain(JSON.stringify(why).slice(1, -1));
  expect((results as { checks: unknown[] }).checks).toEqual([]);
  expect(run.maxRssMiB).toBeLessThan(MAX_RSS_MIB);
}

function expectProtocolFailure(
  run: Run,
  check: CheckResult | undefined,
  limit: string,
  maxRssMiB = MAX_RSS_MIB,
): void {
  expect(run.signal).toBeNull();
  expect(run.code, run.stderr.slice(-2000)).toBe(1);
  expect(check?.status).toBe('fail');
  expect(check?.message).toContain(limit);
  expect(run.maxRssMiB).toBeLessThan(maxRssMiB);
}

describe('test tool-server against hostile servers: exit 1, a report naming the limit, bounded memory', () => {
  test('stdio: a reply line that never ends (maxLineBytes)', async () => {
    const { run, check } = await toolServer(stdioTarget('endless-line'));
    expectProtocolFailure(run, check, '16777216-byte limit (maxLineBytes)');
  });

  test('stdio: a 60 MB reply line of nested brackets (maxLineBytes), as in issue 12 (was exit 134, no report)', async () => {
    const { run, check } = await toolServer(stdioTarget('deep-nesting', '--depth', '30000000'));
    expectProtocolFailure(run, check, 'maxLineBytes');
  });

  test('stdio: a reply nested a million levels deep (maxDepth), not "Maximum call stack size exceeded"', async () => {
    const { run, check } = await toolServer(stdioTarget('deep-nesting'));
    expectProtocolFailure(run, check, '512-level limit (maxDepth)');
    expect(check?.message).not.toContain('call stack');
  });

  test('stdio: a flood of lines that are not JSON is quoted, not reported as "nothing"', async () => {
    const { run, check } = await toolServer(stdioTarget('flood'));
    expectProtocolFailure(run, check, 'not JSON (the first: "not json not json');
  });

  test('SSE: a message line that never ends (maxLineLength; was heap exhaustion)', async () => {
    const { run, check } = await toolServer(await sseTarget('endless-line'));
    expectProtocolFailure(run, check, '16777216-character limit (maxLineLength)');
  });

  test('SSE: a frame that never ends (maxFrameLength; was an uncaught RangeError)', async () => {
    const { run, check } = await toolServer(await sseTarget('endless-frame'));
    expectProtocolFailure(run, check, '16777216-character limit (maxFrameLength)');
  });

  test('SSE: a message event nested a million levels deep (maxDepth)', async () => {
    const { run, check } = await toolServer(await sseTarget('deep-nesting'));
    expectProtocolFailure(run, check, '512-level limit (maxDepth)');
  });

  // Over Streamable HTTP each answer is cut alone: the wait for its reply ends there, naming the
  // limit (it used to run out the reply budget and say only "no reply within 5000 ms").
  test('Streamable HTTP: a JSON answer that never ends (MAX_ANSWER_BYTES)', async () => {
    const { run, check } = await toolServer(
      await httpTarget('endless-line', '--after-initialize', '--answer', 'json'),
    );
    expectProtocolFailure(run, check, 'longer than the 16777216-byte limit (MAX_ANSWER_BYTES)');
    expect(check?.message).toMatch(/^ping got no reply: wirecheck stopped reading the answer to its POST/);
  });

  test('Streamable HTTP: an answer stream whose line never ends (maxLineLength)', async () => {
    const { run, check } = await toolServer(await httpTarget('endless-line', '--after-initialize'));
    expectProtocolFailure(run, check, '16777216-character limit (maxLineLength)');
  });

  test('Streamable HTTP: an answer stream whose frame never ends (maxFrameLength)', async () => {
    const { run, check } = await toolServer(await httpTarget('endless-frame', '--after-initialize'));
    expectProtocolFailure(run, check, '16777216-character limit (maxFrameLength)');
  });

  test('Streamable HTTP: a JSON answer nested a million levels deep (maxDepth)', async () => {
    const { run, check } = await toolServer(
      await httpTarget('deep-nesting', '--after-initialize', '--answer', 'json'),
    );
    expectProtocolFailure(run, check, '512-level limit (maxDepth)');
  });
});

const SMALL_HEAP = { NODE_OPTIONS: '--max-old-space-size=64' };

/**
 * Messages without end, each under every size limit: only the bounds on what is kept hold
 * memory, so the run must finish inside a small heap (V8 collects lazily, so peak RSS alone
 * would not show a leak). Over Streamable HTTP every message of an answer stream was kept, and
 * every response on a watched GET stream whole: in a 64 MB heap the run died of heap
 * exhaustion within 4 s, leaving no report.
 */

describe('test tool-server against floods of small readable messages: the run finishes in a 64 MB heap', () => {
  for (const transport of ['stdio', 'sse', 'http'] as const) {
    test(`${transport}: notifications without end, never the reply`, async () => {
      const target = await targetOver(transport, 'flood-messages');
      const { run, check } = await toolServer(target, { env: SMALL_HEAP });
      expectProtocolFailure(run, check, 'ping got no reply');
    });
  }

  test('http: responses of 1 MiB without end on the GET streams, watched for 3 s by no-cross-session-reply (each was kept whole)', async () => {
    const target = await httpTarget('get-responses', '--after-initialize', '--reply-after', '3000');
    const only = 'tool-server.http.no-cross-session-reply';
    const { run, check } = await toolServer(target, { env: SMALL_HEAP, only });
    expectProtocolFailure(run, check, 'carried a response: {"jsonrpc":"2.0","id":999999');
  });
});

/**
 * Replies of 1 MiB to ids never sent, without end: each is evidence of a reply routed to the
 * wrong session, kept as such, and they were kept by count only (10,000 in the session's
 * replies, 1,000 stray ones, 10,000 in a Streamable HTTP record; frames of 64 KiB over SSE).
 * In a 256 MB heap the run died of heap exhaustion within 15 s over each transport, leaving
 * no report. The session's own 64 Mi characters of kept text need more than the 64 MB heap
 * above.
 */
const MID_HEAP = { NODE_OPTIONS: '--max-old-space-size=256' };
const FLOODED = {
  stdio: { only: 'tool-server.ping.answered', says: 'ping got no reply' },
  // Eight sessions flooded at once, each within its own bounds: 417-457 MB measured, with the
  // heap capped or not.
  sse: {
    only: 'tool-server.sse.concurrent-routing',
    says: '8 session(s) received replies to requests of other sessions',
    maxRssMiB: 512,
  },
  // Two sessions, each with its GET stream and 8 concurrent calls, every answer stream flooded at
  // once: 425-462 MB measured on 2026-12-06 (2 cores, Node 24.21), the heap capped at 256 MB,
  // the same before and after that day's changes (the V8 heap plus each stream's frame in the making).
  http: {
    only: 'tool-server.http.no-cross-session-reply',
    says: 'carried a response it did not ask for',
    maxRssMiB: 512,
  },
} as const;

describe('test tool-server against a flood of large replies nobody asked for: the run finishes in a 256 MB heap', () => {
  for (const transport of ['stdio', 'sse', 'http'] as const) {
    test(`${transport}: replies of 1 MiB to ids never sent, never the reply (in ${FLOODED[transport].only})`, async () => {
      const target = await targetOver(transport, 'flood-replies');
      // Over SSE and HTTP, checks of many sessions or concurrent requests: more floods at once.
      const flood: { only: string; says: string; maxRssMiB?: number } = FLOODED[transport];
      const { run, check } = await toolServer(target, { env: MID_HEAP, only: flood.only });
      expectProtocolFailure(run, check, flood.says, flood.maxRssMiB);
      // The SSE case alone takes 27 s: eight sessions flooded at once.
    }, 90_000);
  }
});

/**
 * A server that answers every request, each answer after 320 notifications of 64 KiB: every
 * check runs, in as many sessions as it opens. Each session had budgets of its own (64 Mi
 * characters of items, 16 Mi of POST records, 4 Mi of events), so the harness held one of
 * them per live session: in a 256 MB heap the HTTP checks died of heap exhaustion within 10 s
 * (the whole suite, unbounded, past 3.6 GB RSS), with no report. Sessions now keep text whole
 * past a floor of their own only within one pool for the process (kept-text.ts).
 */
describe('test tool-server against a server chatty in every session: the run finishes in a 256 MB heap', () => {
  test('http: every answer after 320 notifications of 64 KiB (the tool-server.http. checks)', async () => {
    const target = await httpTarget('chatty-answers', '--after-initialize', '--notes', '320');
    const { run, check } = await toolServer(target, {
      env: MID_HEAP,
      only: 'tool-server.http.',
      checkId: 'tool-server.http.deleted-session-404',
    });
    // Read at some 300 MB/s, the garbage of parsing between collections sets peak RSS: 448 MB
    // measured with the heap capped, 508 MB without; what is kept is what the heap cap holds.
    expectProtocolFailure(run, check, 'after DELETE was answered HTTP 200', 512);
  }, 90_000);

  test('http: every answer after 10,000 notifications within 1 KiB each (the tool-server.http. checks)', async () => {
    // Small texts were kept whole past every budget, 10,000 a session: rc 134 within 24 s, no report.
    const target = await httpTarget(
      'chatty-answers',
      '--after-initialize',
      '--notes',
      '10000',
      '--note-size',
      '950',
    );
    const { run, check } = await toolServer(target, {
      env: MID_HEAP,
      only: 'tool-server.http.',
      checkId: 'tool-server.http.deleted-session-404',
      // 37-41 s alone; one CI run on a busy machine took past 60 s. The bound under test is memory.
      timeoutMs: 120_000,
    });
    // The heap cap is the bound under test; RSS peaks higher than above (486-501 MB measured),
    // at the garbage of parsing 10,000 messages an answer.
    expectProtocolFailure(run, check, 'after DELETE was answered HTTP 200', 640);
  }, 150_000);
});

describe('test tool-server against a server hostile from its first reply: unavailable (exit 2), the report says why, bounded memory', () => {
  test('stdio: `cat` is told apart from a tool server (unavailable: exit 2, the report says why)', async () => {
    const { run, results } = await unavailableToolServer(['--stdio', 'cat']);
    expectUnavailable(
      run,
      results,
      'the server echoed the request back: it looks like `cat`, not a tool server',
    );
  });

  test('stdio: a reply to initialize that never ends: unavailable (exit 2), naming maxLineBytes, bounded', async () => {
    const { run, results } = await unavailableToolServer([
      '--stdio',
      targetCommand('endless-line', '--transport', 'stdio'),
    ]);
    expectUnavailable(run, results, '16777216-byte limit (maxLineBytes)');
  });

  test('stdio: a reply to initialize written a byte at a time and never ended: unavailable (exit 2), bounded (it was 500 MiB in 10 s)', async () => {
    const { run, results } = await unavailableToolServer(['--stdio', targetCommand('trickle-line')]);
    expectUnavailable(run, results, 'but no complete line');
  });

  test('Streamable HTTP: an initialize answer that never ends: unavailable (exit 2), naming MAX_ANSWER_BYTES, bounded', async () => {
    const { run, results } = await unavailableToolServer(
      await httpTarget('endless-line', '--answer', 'json'),
    );
    expectUnavailable(run, results, '16777216-byte limit (MAX_ANSWER_BYTES)');
  });
});

describe('probe and the reference messages client stay bounded', () => {
  let target: RunningTarget | undefined;
  const services: Server[] = [];
  afterAll(async () => {
    await target?.stop();
    for (const s of services) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  test.each([
    ['endless-line', 'maxLineLength'],
    ['endless-frame', 'maxFrameLength'],
  ])(
    '`wirecheck probe` of a server whose reply is an %s: unhealthy (exit 1), naming %s',
    async (name, limit) => {
      target = await startSseTarget(name);
      const run = await wirecheck(['probe', target.url]);
      await target.stop();
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(limit);
      expect(run.maxRssMiB).toBeLessThan(MAX_RSS_MIB);
    },
  );

  test.each([
    [['endless-line', '--answer', 'json'], 'went on past the 1048576-byte limit'],
    [['endless-frame'], 'maxFrameLength'],
    [
      ['deep-nesting'],
      'ended without a response to initialize; it carried an event that cannot be read: JSON nested deeper than the 512-level limit (maxDepth)',
    ],
  ])(
    '`wirecheck probe --http` of a server whose answer is %j: unhealthy (exit 1), saying %s',
    async (args, why) => {
      const [name, ...rest] = args as [string, ...string[]];
      target = await startHttpTarget(name, ...rest);
      const run = await wirecheck(['probe', '--http', target.url]);
      await target.stop();
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(why);
      expect(run.maxRssMiB).toBeLessThan(MAX_RSS_MIB);
    },
  );

  /** A messages service that answers every request with `start`, then `piece` until the client goes away. */
  async function endlessService(start: string, piece: string): Promise<string> {
    const service = createServer((req, res: ServerResponse) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(start);
      void writeForever(res, piece);
    });
    services.push(service);
    await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(service.address() as { port: number }).port}`;
  }

  const START =
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n';

  test.each([
    ['a line that never ends', 'event: content_block_start\ndata: ', 'x'.repeat(64 * 1024), 'maxLineLength'],
    [
      'a frame that never ends',
      'event: content_block_start\n',
      `data: ${'x'.repeat(1000)}\n`.repeat(64),
      'maxFrameLength',
    ],
  ])(
    '`wirecheck messages-client` on a stream with %s: a stream error (exit 1) naming the limit',
    async (_what, first, piece, limit) => {
      const url = await endlessService(START + first, piece);
      const run = await wirecheck(['messages-client'], {
        env: { WIRECHECK_BASE_URL: url, WIRECHECK_API_KEY: 'k', WIRECHECK_MAX_RETRIES: '0' },
        stdin: JSON.stringify({
          model: 'x',
          max_tokens: 16,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      expect(run.code).toBe(1);
      const printed = JSON.parse(run.stdout) as { error: { kind: string; message: string } };
      expect(printed.error.kind).toBe('stream');
      expect(printed.error.message).toContain(limit);
      expect(run.maxRssMiB).toBeLessThan(MAX_RSS_MIB);
    },
  );
});

describe('the readers stay bounded while more than 1 GB goes through them', () => {
  test.each(['sse-line', 'sse-frame', 'jsonl-line'])(
    '%s: one limit error, peak memory far below the bytes fed',
    async (reader) => {
      const run = await runNode([READ_MORE_THAN, '--reader', reader, '--bytes', String(ONE_GB)], {
        timeoutMs: 60_000,
      });
      const result = JSON.parse(run.stdout) as { bytes: number; reported: string[]; maxRssKiB: number };
      expect(result.bytes).toBeGreaterThan(ONE_GB);
      expect(result.reported).toHaveLength(1);
      expect(result.reported[0]).toMatch(/limit \((maxLineLength|maxFrameLength|maxLineBytes)\)/);
      expect(result.maxRssKiB / 1024).toBeLessThan(MAX_RSS_MIB);
    },
  );

  test('a stdio channel reading a flood of lines that are not JSON', async () => {
    const run = await runNode(
      [
        READ_MORE_THAN,
        '--reader',
        'stdio-channel',
        '--command',
        targetCommand('flood'),
        '--bytes',
        String(ONE_GB),
      ],
      { timeoutMs: 120_000 },
    );
    const result = JSON.parse(run.stdout) as {
      bytes: number;
      kept: number;
      summary: string;
      maxRssKiB: number;
    };
    expect(result.bytes, result.summary).toBeGreaterThan(ONE_GB);
    expect(result.kept).toBeLessThanOrEqual(10_000);
    expect(result.summary).toContain('not JSON');
    expect(result.maxRssKiB / 1024).toBeLessThan(MAX_RSS_MIB);
  }, 150_000);
});
