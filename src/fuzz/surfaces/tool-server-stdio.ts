import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { createLineDecoder } from '../../protocol/jsonrpc/index.js';
import { serveToolsOverStdio } from '../../servers/tools/index.js';
import { chunkBytes } from '../../suites/arbitraries/messages.js';
import { arbMessageTemplate, type RpcMessage, renderMessages } from '../mutations/jsonrpc.js';
import {
  allowsNone,
  describeExpectation,
  type Expectation,
  expectForBytes,
  matchReplies,
} from '../oracles/jsonrpc.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/*
 * The reference tool server over stdio (`serveToolsOverStdio`, in-process over a pair of
 * PassThrough streams): one server for the whole run. A case is a few lines (or a flood
 * of them) fed in random chunks; the oracle says what each line must get. Then a ping
 * must be answered, no call may be left in flight, and nothing but the expected replies
 * may have appeared on the output.
 */

/** A reply expected and not there by then is missing (well below the 5 s case limit). */
export const REPLY_DEADLINE_MS = 2_000;
/** After a case that started slow calls (0-3 ms each), stray late replies get this long to show. */
const SETTLE_MS = 30;
const ALIVE_PREFIX = 'wirecheck-alive#';
const UNASKED = 'a reply no line asked for';
const AFTER_FAILURE_MS = 100;
const isProbe = (m: unknown): boolean => {
  const id = (m as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.startsWith(ALIVE_PREFIX);
};

export type Feed = { how: 'whole' } | { how: 'bytewise' } | { how: 'cuts'; cuts: number[] };

export interface StdioCase {
  messages: RpcMessage[];
  ends: ('\n' | '\r\n')[];
  feed: Feed;
}

const LF = 0x0a;
const encoder = new TextEncoder();

export function caseBytes(c: Pick<StdioCase, 'messages' | 'ends'>): Uint8Array {
  return Buffer.concat(c.messages.flatMap((m, i) => [m.body, encoder.encode(c.ends[i] ?? '\n')]));
}

/** The lines the server reads: the bytes before each LF (every case ends with one). */
export function linesOf(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (;;) {
    const lf = bytes.indexOf(LF, start);
    if (lf < 0) break;
    lines.push(bytes.subarray(start, lf));
    start = lf + 1;
  }
  return lines;
}

function chunksOf(bytes: Uint8Array, feed: Feed): Uint8Array[] {
  switch (feed.how) {
    case 'whole':
      return [bytes];
    case 'bytewise':
      return bytes.length > 4096
        ? [bytes]
        : chunkBytes(
            bytes,
            Array.from(bytes, (_, i) => i),
          );
    case 'cuts':
      return chunkBytes(
        bytes,
        feed.cuts.map((c) => c % Math.max(bytes.length, 1)),
      );
  }
}

function shown(bytes: Uint8Array): string {
  const text = JSON.stringify(Buffer.from(bytes.subarray(0, 300)).toString('latin1'));
  return bytes.length > 300 ? `${text}... (${bytes.length} bytes)` : text;
}

function printable(c: StdioCase): StdioCase {
  return Object.assign(c, {
    [fc.toStringMethod]: () =>
      `{${c.messages.length} line(s), fed ${c.feed.how}${c.feed.how === 'cuts' ? ` ${JSON.stringify(c.feed.cuts.slice(0, 20))}` : ''}: ${c.messages
        .map((m, i) => `[${i}] ${m.what}: ${shown(m.body)}${JSON.stringify(c.ends[i])}`)
        .join(' | ')}}`,
  });
}

const arbFeed: fc.Arbitrary<Feed> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Feed>({ how: 'whole' }) },
  { weight: 1, arbitrary: fc.constant<Feed>({ how: 'bytewise' }) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.nat(), { minLength: 1, maxLength: 20 })
      .map<Feed>((cuts) => ({ how: 'cuts', cuts })),
  },
);

const arbEnd = fc.oneof({ weight: 4, arbitrary: fc.constant<'\n'>('\n') }, fc.constant<'\r\n'>('\r\n'));

export const arbStdioCase: fc.Arbitrary<StdioCase> = fc
  .record({
    templates: fc.oneof(
      { withCrossShrink: true },
      { weight: 20, arbitrary: fc.array(arbMessageTemplate, { minLength: 1, maxLength: 6 }) },
      // A flood: many lines in one go.
      { weight: 1, arbitrary: fc.array(arbMessageTemplate, { minLength: 30, maxLength: 80 }) },
    ),
    ends: fc.array(arbEnd, { minLength: 1, maxLength: 6 }),
    feed: arbFeed,
  })
  .map(({ templates, ends, feed }) =>
    printable({
      messages: renderMessages(templates),
      ends: templates.map((_, i) => ends[i % ends.length] ?? '\n'),
      feed,
    }),
  );

// ---------------------------------------------------------------------------------------
// Driving the server.

function fail(message: string): never {
  throw new FuzzViolation(message);
}

interface Output {
  replies: unknown[];
  problems: string[];
  lineBreaks: number;
  decoded: number;
}

const INIT_ID = 'fuzz-initialize';
const INIT_PARAMS = {
  protocolVersion: '2024-11-05',
  capabilities: {},
  clientInfo: { name: 'wirecheck-fuzz', version: '1' },
};

export interface ToolServerStdioOptions {
  /** The server under test (default `serveToolsOverStdio`); a test passes a broken one. */
  serve?: typeof serveToolsOverStdio;
}

export function toolServerStdioSurface(options: ToolServerStdioOptions = {}): FuzzSurface<StdioCase> {
  const serve = options.serve ?? serveToolsOverStdio;
  return {
    name: 'tool-server-stdio',
    description:
      'reference tool server over stdio (in-process): invalid JSON, wrong envelopes, odd and huge ids, unknown methods and tools, notifications, responses and batches, in random chunks, each get exactly the JSON-RPC answer the rules give (or none), nothing else reaches stdout, and the server still answers a ping',
    async open() {
      const input = new PassThrough();
      const output = new PassThrough();
      const log: string[] = [];
      const server = await serve({ input, output, log: (line) => void (log.length < 100 && log.push(line)) });
      const out: Output = { replies: [], problems: [], lineBreaks: 0, decoded: 0 };
      let wake: (() => void) | undefined;
      const decoder = createLineDecoder({
        onLine(line) {
          out.decoded += 1;
          if (line.ok) out.replies.push(line.value);
          else
            out.problems.push(
              `a line on stdout that is not JSON: ${JSON.stringify(line.line.slice(0, 200))}`,
            );
        },
      });
      output.on('data', (chunk: Buffer) => {
        for (const b of chunk) if (b === LF) out.lineBreaks += 1;
        decoder.feed(chunk);
        wake?.();
      });
      let probe = 0;
      let dirty = false;

      /** Wait until `done()` holds, or fail naming what is still missing. */
      const waitFor = async (done: () => boolean, missing: () => string): Promise<void> => {
        const deadline = performance.now() + REPLY_DEADLINE_MS;
        while (!done()) {
          const left = deadline - performance.now();
          if (left <= 0) fail(`no reply within ${REPLY_DEADLINE_MS} ms: ${missing()}`);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, left);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
      };

      // The cases run on an initialized session, as a client's requests do (before initialize
      // the server refuses everything but ping).
      input.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: INIT_ID, method: 'initialize', params: INIT_PARAMS })}\n`,
      );
      await waitFor(
        () => out.replies.some((r) => (r as { id?: unknown } | null)?.id === INIT_ID),
        () => 'the initialize result',
      );
      input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      out.replies = [];

      return {
        arbitrary: arbStdioCase,
        async check(c) {
          // After a failed case its late answers may still come: let them land, then forget them.
          if (dirty) await new Promise((r) => setTimeout(r, AFTER_FAILURE_MS));
          dirty = true;
          if (server.session.closed) fail('the server had stopped serving before this case');
          out.replies = [];
          out.problems = [];
          out.lineBreaks = 0;
          out.decoded = 0;
          const bytes = caseBytes(c);
          const lines = linesOf(bytes);
          const expected: Expectation[] = lines.map((l) => expectForBytes(l, { blank: 'optional' }));
          const aliveId = `${ALIVE_PREFIX}${probe++}`;
          for (const chunk of chunksOf(bytes, c.feed)) input.write(chunk);
          input.write(`${JSON.stringify({ jsonrpc: '2.0', id: aliveId, method: 'ping' })}\n`);

          const isAlive = (r: unknown) => (r as { id?: unknown } | null)?.id === aliveId;
          const definite = expected.filter((e) => !allowsNone(e)).length;
          // Replies may come in any order (slow calls answer later): once enough are there,
          // judge them, and again whenever more arrive, until they fit or time is up.
          let judgedAt = -1;
          let problem: string | undefined = 'nothing arrived';
          await waitFor(
            () => {
              if (out.problems.length > 0) fail(out.problems[0] as string);
              if (!out.replies.some(isAlive) || out.replies.length - 1 < definite) return false;
              if (out.replies.length !== judgedAt) {
                judgedAt = out.replies.length;
                problem = verdict(lines, expected, out, aliveId);
                // A reply nothing asked for stays wrong however long one waits.
                if (problem?.startsWith(UNASKED)) fail(problem);
              }
              return problem === undefined;
            },
            () =>
              out.replies.some(isAlive)
                ? (verdict(lines, expected, out, aliveId) ?? 'the replies were incomplete')
                : 'the ping sent after the case was not answered: the server stopped serving',
          );
          if (c.messages.some((m) => m.slow)) {
            await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          }
          const late = verdict(lines, expected, out, aliveId);
          if (late !== undefined) fail(late);
          if (server.core.inFlightCount() !== 0) {
            fail(
              `${server.core.inFlightCount()} call(s) still in flight after every reply arrived (cancelled or finished calls must be released)`,
            );
          }
          if (server.session.closed) fail('the server stopped serving after this case');
          dirty = false;
        },
        async close() {
          input.end();
          await server.close();
        },
      };
    },
  };
}

/** What is wrong with the output so far, or undefined when it is exactly what the lines ask for. */
function verdict(
  lines: readonly Uint8Array[],
  expected: readonly Expectation[],
  out: Output,
  aliveId: string,
): string | undefined {
  if (out.problems.length > 0) return out.problems[0];
  if (out.lineBreaks !== out.decoded) {
    return `stdout carried ${out.lineBreaks - out.decoded} blank line(s): stdout is for protocol messages only`;
  }
  const alive = out.replies.filter((r) => (r as { id?: unknown } | null)?.id === aliveId);
  if (alive.length !== 1) return `the ping after the case was answered ${alive.length} times`;
  const ping = alive[0] as { result?: unknown };
  if (typeof ping.result !== 'object' || ping.result === null) {
    return `the ping after the case got ${JSON.stringify(ping).slice(0, 300)}, not a result`;
  }
  // Pings of earlier cases that failed before their answers came are no answers of this one.
  const replies = out.replies.filter((r) => r !== ping && !isProbe(r));
  const matching = matchReplies(expected, replies);
  if (matching.ok) return undefined;
  const parts: string[] = [];
  for (const r of matching.unexpected.slice(0, 3)) {
    parts.push(`${UNASKED}: ${JSON.stringify(replies[r]).slice(0, 400)}`);
  }
  for (const x of matching.missing.slice(0, 3)) {
    parts.push(
      `line ${x} ${shown(lines[x] as Uint8Array)} expected ${describeExpectation(expected[x] as Expectation).slice(0, 600)}`,
    );
  }
  return `${parts.join('; ')} (replies that arrived: ${replies
    .map((r) => JSON.stringify(r).slice(0, 200))
    .join(', ')
    .slice(0, 1500)})`;
}

export const toolServerStdio = toolServerStdioSurface();
