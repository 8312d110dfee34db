import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { MAX_CASE_REQUESTS } from '../../../src/suites/messages-client/context.js';
import { messagesClientSuite } from '../../../src/suites/messages-client/index.js';
import { MODEL } from '../../../src/suites/messages-client/requests.js';
import { type ExpectedVerdicts, expectedStatuses, verdictPhrase } from '../../broken-verdicts.js';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const SUITE = 'messages-client';
const P = `${SUITE}.`;

/**
 * Each broken client (broken/<name>.mjs: the independent client with one flaw) runs the
 * checks of its rule family plus a neighbour it must still pass, so a failure is shown to
 * come from the flaw and not from a suite that fails everything.
 */
const CASES: ({ client: string; flaw: string } & ExpectedVerdicts)[] = [
  {
    client: 'crash-on-ping',
    flaw: 'crashes on a ping frame',
    fails: ['stream.pings'],
    passes: ['stream.comments'],
  },
  {
    client: 'last-data-line',
    flaw: 'keeps only the last data: line of a frame',
    fails: [],
    warns: ['stream.sse-syntax'],
    passes: ['stream.final-message', 'stream.line-endings'],
  },
  {
    client: 'decode-per-chunk',
    flaw: 'decodes every network read on its own, breaking characters cut across reads',
    fails: ['stream.utf8-split'],
    passes: ['buffered.final-message'],
  },
  {
    client: 'parse-each-fragment',
    flaw: 'parses every partial_json fragment on arrival',
    fails: ['stream.tool-input-fragments'],
    passes: ['buffered.final-message'],
  },
  {
    client: 'exit-zero-on-429',
    flaw: 'exits 0 on a 429',
    fails: ['errors.rate-limit'],
    passes: ['errors.status-500'],
  },
  {
    client: 'rate-limit-as-status',
    flaw: 'reports a 429 with kind status',
    fails: ['errors.rate-limit'],
    passes: ['errors.status-400'],
  },
  {
    client: 'bearer-auth',
    flaw: 'sends Authorization: Bearer instead of x-api-key',
    fails: [],
    warns: ['auth.x-api-key'],
    passes: ['auth.key-sent', 'headers.version', 'request.body'],
  },
  {
    client: 'omit-key-header',
    flaw: 'sends no key header although the key is set',
    fails: ['auth.key-sent'],
    // The mock refuses every request unread: no reply was met, no body read.
    skips: ['request.body', 'buffered.final-message', 'stream.final-message', 'errors.rate-limit'],
    passes: ['headers.version', 'headers.content-type'],
  },
  {
    client: 'no-version-header',
    flaw: 'sends no version header',
    fails: ['headers.version'],
    // No value to judge: the must check above reports the absence, once.
    skips: ['headers.version-value'],
    passes: ['auth.key-sent', 'headers.content-type'],
  },
  {
    client: 'wrong-path',
    flaw: 'posts to {base}/messages, as if the base URL ended in /v1',
    fails: ['request.endpoint'],
    skips: [
      'request.body',
      'request.body-additions',
      'buffered.final-message',
      'stream.pings',
      'stream-errors.malformed-json',
      'errors.rate-limit',
      'errors.status-529',
    ],
    passes: ['auth.key-sent', 'headers.version'],
  },
  {
    client: 'wrong-path-without-tools',
    flaw: 'posts a request without tools to {base}/messages',
    // request.endpoint judges the shared cases, which offer tools; so the checks that met
    // the refusal keep it and fail, naming the 404.
    fails: ['buffered.generated-messages', 'errors.status-500'],
    passes: ['request.endpoint', 'request.body'],
  },
  {
    client: 'temperature-two',
    flaw: 'adds temperature: 2 to every request, which the real API refuses',
    fails: ['request.body'],
    // Every body is refused with 400: no case met its reply.
    skips: [
      'buffered.final-message',
      'stream.final-message',
      'stream.pings',
      'errors.rate-limit',
      'errors.status-529',
    ],
    passes: ['request.endpoint', 'request.body-additions', 'auth.key-sent', 'headers.version'],
  },
  {
    client: 'send-without-key',
    flaw: 'sends the request without a key',
    fails: ['auth.missing-key'],
    passes: ['auth.key-sent', 'auth.x-api-key'],
  },
  {
    client: 'accept-truncated',
    flaw: 'prints a message from a stream that ended early',
    fails: ['stream-errors.ends-mid-block', 'stream-errors.disconnect'],
    // After message_delta the message is whole: printing exactly it is allowed (the Python SDK does).
    passes: ['stream-errors.error-event-mid-stream', 'stream-errors.no-message-stop'],
  },
  {
    client: 'count-tokens-first',
    flaw: 'asks POST /v1/messages/count_tokens (another operation of the real API) before each request, an equivalent client,',
    fails: [],
    passes: [
      'request.endpoint',
      'request.body',
      'auth.key-sent',
      'buffered.final-message',
      'stream.final-message',
      'errors.status-529',
    ],
  },
  {
    client: 'omit-defaults',
    flaw: "leaves out is_error: false and a bash input's restart: false (documented defaults), an equivalent request and message,",
    fails: [],
    passes: ['request.body', 'buffered.final-message', 'buffered.generated-messages', 'stream.final-message'],
  },
  {
    client: 'extra-tool-field',
    flaw: 'adds a field to every tool definition',
    fails: [],
    warns: ['request.body-additions'],
    passes: ['request.body', 'request.endpoint'],
  },
  {
    client: 'null-unset-fields',
    flaw: 'writes unset fields the API schema makes nullable as null (type: null on a custom tool, cache_control: null), an equivalent client,',
    fails: [],
    passes: ['request.body', 'request.body-additions', 'buffered.final-message'],
  },
  {
    client: 'gzip-body',
    flaw: 'sends its body gzipped (Content-Encoding: gzip), an equivalent client as far as is known,',
    fails: [],
    passes: ['request.body', 'request.body-additions', 'buffered.final-message', 'stream.final-message'],
  },
  {
    client: 'compress-body',
    flaw: 'labels its body with a Content-Encoding the mock does not decode (compress)',
    fails: [],
    // The real API's handling of Content-Encoding is not verified: nothing is judged of such a body.
    skips: ['request.body', 'request.body-additions', 'buffered.final-message', 'errors.status-500'],
    passes: ['request.endpoint', 'auth.key-sent', 'headers.version', 'headers.content-type'],
  },
  {
    client: 'lenient-tool-json',
    flaw: 'completes tool input JSON that was cut short',
    fails: [],
    warns: ['stream-errors.invalid-tool-json'],
    passes: ['stream.tool-input-fragments'],
  },
  {
    client: 'drop-frames-without-event',
    flaw: 'drops frames without an event: line',
    fails: [],
    warns: ['stream-errors.no-event-line'],
    passes: ['stream-errors.type-mismatch'],
  },
  {
    client: 'skip-type-mismatch',
    flaw: 'skips frames whose data type is not the event name',
    fails: [],
    warns: ['stream-errors.type-mismatch'],
    passes: ['stream.pings'],
  },
  {
    client: 'stream-errors-as-stream',
    flaw: 'reports an HTTP error to a streamed request as kind stream',
    fails: ['errors.rate-limit-streamed', 'errors.status-529-streamed'],
    passes: ['errors.rate-limit', 'errors.status-529'],
  },
  {
    client: 'client-errors-as-connection',
    flaw: 'reports 403, 404 and 413 as kind connection',
    fails: ['errors.status-403', 'errors.status-404', 'errors.status-413'],
    passes: ['errors.status-400'],
  },
  {
    client: 'retry-after-as-rate-limit',
    flaw: 'reports any status sent with retry-after as kind rate_limit',
    fails: ['errors.status-529-retry-after'],
    passes: ['errors.status-529', 'errors.rate-limit'],
  },
  {
    client: 'strict-blocks',
    flaw: 'crashes on block and delta types the spec does not list',
    fails: [],
    warns: ['compat.unknown-block-streamed', 'compat.unknown-block-buffered', 'compat.unknown-deltas'],
    passes: ['compat.new-stop-reason', 'stream.final-message'],
  },
  {
    client: 'strict-stop-reason',
    flaw: 'crashes on a stop reason the spec does not list',
    fails: [],
    warns: ['compat.new-stop-reason'],
    passes: ['compat.unknown-deltas'],
  },
  {
    client: 'add-start-output-tokens',
    flaw: "adds message_start's output_tokens to message_delta's, so every stream's count is off",
    fails: ['stream.final-message'],
    // Each reads its variation as the plain stream, and the plain stream is final-message's to fail.
    skips: [
      'stream.utf8-split',
      'stream.line-endings',
      'stream.tool-input-fragments',
      'stream.pings',
      'stream.comments',
      'stream.unknown-events',
      'stream.sse-syntax',
      'compat.unknown-deltas',
      'compat.usage-counters',
    ],
    passes: ['buffered.final-message'],
  },
  {
    client: 'sum-usage',
    flaw: 'adds every usage counter of message_delta into output_tokens',
    fails: [],
    warns: ['compat.usage-counters'],
    passes: ['stream.tool-input-fragments'],
  },
  {
    client: 'ignore-stream-flag',
    flaw: 'asks for a buffered reply although stdin says stream: true',
    fails: ['request.body', 'stream.line-endings'],
    passes: ['buffered.final-message'],
  },
  {
    client: 'ignore-stream-flag-quietly',
    flaw: 'asks for a buffered reply although stdin says stream: true, and reports the SSE body it gets as kind stream',
    // The stream-error checks judge how a stream is handled: one that asked for none is not
    // judged by its error kind alone (these passed it, having seen no stream).
    fails: ['request.body', 'stream-errors.ends-mid-block'],
    warns: ['stream-errors.invalid-tool-json'],
    passes: ['buffered.final-message'],
  },
  {
    client: 'no-tool-streams',
    flaw: 'fails every stream that carries tool input (kind stream)',
    fails: ['stream.final-message'],
    // It fails the same streams without the fault: reporting the fault says nothing. Nor does
    // failing the message cut one code point per delta, as it fails it uncut alike.
    skips: [
      'stream.tool-input-fragments',
      'stream-errors.error-event-first',
      'stream-errors.no-message-stop',
      'stream-errors.ends-mid-block',
      'stream-errors.error-event-mid-stream',
      'stream-errors.no-event-line',
      'stream-errors.invalid-tool-json',
    ],
    passes: ['buffered.final-message', 'errors.status-400'],
  },
  {
    client: 'refuse-streamed-tools',
    flaw: 'sends nothing for a streamed request that offers tools',
    // One fault, failed once by its owner; the header rules judge the buffered request.
    fails: ['request.body'],
    passes: ['request.endpoint', 'headers.version', 'headers.content-type', 'auth.key-sent'],
  },
  {
    client: 'no-content-type',
    flaw: 'sets no content-type, so fetch labels the JSON body text/plain',
    // The mock reads the body whatever its label: only the header rule sees the fault.
    fails: ['headers.content-type'],
    passes: ['headers.version', 'request.body', 'auth.key-sent'],
  },
  {
    client: 'buffered-without-usage',
    flaw: 'prints a buffered reply without its usage',
    fails: ['buffered.final-message', 'buffered.generated-messages'],
    passes: ['stream.final-message', 'request.body'],
  },
  {
    client: 'comments-as-data',
    flaw: 'reads the text of an SSE comment line as data',
    // Generated streams carry comments too: stream.final-message meets the same fault.
    fails: ['stream.comments', 'stream.final-message'],
    passes: ['stream.pings', 'stream.line-endings'],
  },
  {
    client: 'skip-non-json-frames',
    flaw: 'skips a frame whose data is not JSON and prints the rest',
    fails: ['stream-errors.malformed-json'],
    passes: ['stream-errors.error-event-first', 'stream.final-message'],
  },
  {
    client: 'error-event-ends-stream',
    flaw: 'takes an error event after message_start as the end of the stream and prints the partial message',
    fails: ['stream-errors.error-event-mid-stream', 'stream-errors.error-event-before-stop'],
    // Before message_start there is nothing to print: it still reports the first frame's error.
    passes: ['stream-errors.error-event-first', 'stream-errors.ends-mid-block'],
  },
  {
    client: 'ignore-error-events',
    flaw: 'skips error events and prints a stream that ends after message_delta without message_stop',
    fails: ['stream-errors.error-event-before-stop'],
    // Where the error event ends the stream before message_delta, the cut alone makes it fail.
    passes: [
      'stream-errors.error-event-first',
      'stream-errors.error-event-mid-stream',
      'stream-errors.no-message-stop',
    ],
  },
  {
    client: 'lenient-stop',
    flaw: 'prints a stream that ends cleanly after message_delta without message_stop (the message is whole), an equivalent client,',
    fails: [],
    passes: [
      'stream-errors.no-message-stop',
      'stream-errors.error-event-before-stop',
      'stream-errors.error-event-mid-stream',
      'stream-errors.ends-mid-block',
    ],
  },
  {
    client: 'first-error-event-as-status',
    flaw: 'reports an error event that opens a 200 stream as an HTTP error (kind status, 529 for overloaded_error)',
    fails: ['stream-errors.error-event-first'],
    // After message_start the same event is a stream error.
    passes: ['stream-errors.error-event-mid-stream', 'errors.status-529'],
  },
  {
    client: 'bad-request-kind-from-body',
    flaw: "reports a 400 with the body's error type (invalid_request_error) as kind",
    fails: ['errors.status-400'],
    passes: ['errors.status-413', 'errors.status-500'],
  },
  {
    client: 'auth-error-as-missing-key',
    flaw: 'reports a 401 (the key refused) as kind missing_api_key',
    fails: ['errors.status-401'],
    passes: ['auth.missing-key', 'errors.status-403'],
  },
  {
    client: 'version-2024-01-01',
    flaw: 'sends anthropic-version: 2024-01-01',
    fails: [],
    warns: ['headers.version-value'],
    passes: ['headers.version', 'auth.key-sent'],
  },
  {
    client: 'crash-on-early-ping',
    flaw: 'crashes on a ping before message_start (only there)',
    fails: [],
    warns: ['stream.ping-before-message-start'],
    passes: ['stream.pings'],
  },
  {
    client: 'strict-events',
    flaw: 'crashes on an event name the spec does not list',
    fails: [],
    warns: ['stream.unknown-events'],
    passes: ['stream.pings', 'stream.comments'],
  },
  {
    client: 'stop-reason-at-message-stop',
    flaw: 'applies the stop reason at message_stop, so a stream without it is printed with stop_reason null',
    fails: [],
    warns: ['stream-errors.no-message-stop'],
    // Without message_delta nothing is printed: the stream cut inside a block is still reported.
    passes: ['stream.final-message', 'stream-errors.ends-mid-block'],
  },
  {
    client: 'retry-429-at-once',
    flaw: 'retries a 429 at once, ignoring its retry-after',
    fails: [],
    warns: ['errors.retry-after'],
    passes: ['errors.rate-limit'],
  },
  {
    client: 'retry-429-after-retry-after',
    flaw: 'retries a 429 once, after its retry-after, an equivalent client,',
    fails: [],
    passes: ['errors.retry-after', 'errors.rate-limit'],
  },
  {
    client: 'overloaded-as-rate-limit',
    flaw: 'reports a 529 (overloaded) as kind rate_limit',
    fails: ['errors.status-529', 'errors.status-529-streamed', 'errors.status-529-retry-after'],
    passes: ['errors.status-500', 'errors.rate-limit'],
  },
];

describe('the suite fails clients that break a rule', () => {
  for (const c of CASES) {
    test(`a client that ${c.flaw} ${verdictPhrase(c)}`, async () => {
      const expected = expectedStatuses(c, SUITE);
      const result = await runAgainst(nodeCommand(`./broken/${c.client}.mjs`), {
        only: Object.keys(expected),
      });
      expect(statusById(result)).toEqual(expected);
    }, 60_000);
  }
});

test('a client that retries a 5xx without end is stopped after MAX_CASE_REQUESTS requests, and the failure shows the first and last of them', async () => {
  const result = await runAgainst(nodeCommand('./broken/retry-forever.mjs'), {
    only: [`${P}errors.status-500`, `${P}buffered.final-message`],
  });
  expect(statusById(result)).toEqual({
    [`${P}errors.status-500`]: 'fail',
    [`${P}buffered.final-message`]: 'pass',
  });
  const check = result.checks.find((c) => c.id === `${P}errors.status-500`)!;
  expect(check.message).toContain(`wirecheck stopped it after ${MAX_CASE_REQUESTS} requests in this case`);
  expect(check.message).toContain(`${MAX_CASE_REQUESTS} requests: POST /v1/messages`);
  expect(check.message).toContain(`... ${MAX_CASE_REQUESTS - 5} more ...`);
}, 60_000);

test('the SSE syntax warning names, of the pieces served together, the one the client trips on alone', async () => {
  const result = await runAgainst(nodeCommand('./broken/last-data-line.mjs'), {
    only: [`${P}stream.sse-syntax`],
  });
  const [check] = result.checks;
  expect(check?.status).toBe('warn');
  expect(check?.message).toMatch(
    /\(served one at a time, the client trips on data over several data: lines\)$/,
  );
}, 60_000);

test('a fault every stream shares is not blamed on pings: the check names it and stream.final-message', async () => {
  const result = await runAgainst(nodeCommand('./broken/add-start-output-tokens.mjs'), {
    only: [`${P}stream.pings`],
  });
  const check = result.checks[0]!;
  expect(check.status).toBe('skip');
  expect(check.message).toContain(
    'the client gets the same stream without the variation wrong in the same way (the printed message differs from the message the mock served: $.usage.output_tokens: expected 123, got 124)',
  );
  expect(check.message).toContain('messages-client.stream.final-message judges the plain stream');
}, 60_000);

test('a client that also trips on pings still fails stream.pings: its plain stream goes wrong another way', async () => {
  const result = await runAgainst(nodeCommand('./broken/crash-on-ping-off-count.mjs'), {
    only: [`${P}stream.pings`, `${P}stream.comments`],
  });
  expect(statusById(result)).toEqual({ [`${P}stream.pings`]: 'fail', [`${P}stream.comments`]: 'skip' });
}, 60_000);

test('a dialect not judged leaves the other line endings judged: lone CR unread still fails', async () => {
  const result = await runAgainst(nodeCommand('./broken/no-lone-cr-off-count.mjs'), {
    only: [`${P}stream.line-endings`],
  });
  const check = result.checks[0]!;
  expect(check.status).toBe('fail');
  expect(check.message).toMatch(/^lone CR line endings: /);
}, 60_000);

test('a failure names what was expected and what the client did', async () => {
  const result = await runAgainst(nodeCommand('./broken/rate-limit-as-status.mjs'), {
    only: [`${P}errors.rate-limit`],
  });
  const check = result.checks[0]!;
  expect(check.message).toContain('wrong failure kind "status"');
  expect(check.expected).toContain('"kind":"rate_limit"');
  expect(check.actual).toContain('"status":429');
  expect(check.reproduce).toContain('--only messages-client.errors.rate-limit');
}, 60_000);

test('every difference of the body sent is reported, a default left out is none of them', async () => {
  const result = await runAgainst(nodeCommand('./broken/extra-tool-field-and-model.mjs'), {
    only: [`${P}request.body`, `${P}request.body-additions`],
  });
  const [body, additions] = result.checks;
  expect(body!.status).toBe('fail');
  expect(body!.message).toContain(`$.model: expected "${MODEL}", got "${MODEL}-latest"`);
  expect(body!.message).not.toContain('is_error');
  expect(additions!.status).toBe('warn');
  expect(additions!.message).toContain('$.tools[0].cache_control: not expected');
  expect(additions!.message).toContain('$.tools[1].cache_control: not expected');
  expect(additions!.message).not.toContain('is_error');
}, 60_000);

test('a body whose Content-Encoding the mock does not decode is not judged, and the skips name Content-Encoding', async () => {
  const result = await runAgainst(nodeCommand('./broken/compress-body.mjs'), {
    only: [`${P}request.body`, `${P}buffered.final-message`],
  });
  for (const check of result.checks) {
    expect(check.status, check.id).toBe('skip');
    expect(check.message).toContain(
      'status 415: Content-Encoding: compress: the mock does not decode "compress"',
    );
    expect(check.message).toContain('whether the real API does is not verified');
    expect(check.message).toContain('no check judges that request');
  }
}, 60_000);

test('a command that cannot be started makes the target unavailable', async () => {
  await expect(
    runSuite(messagesClientSuite, { client: 'wirecheck-no-such-command-4711' }, { seed: 1, runs: 1 }),
  ).rejects.toBeInstanceOf(TargetUnavailable);
}, 30_000);

test('a client that never reaches the mock is unavailable: one message with what was run and its first stderr lines', async () => {
  const error = await runSuite(
    messagesClientSuite,
    { client: `${shellQuote(process.execPath)} /nonexistent-wirecheck-client.js` },
    { seed: 1, runs: 1 },
  ).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TargetUnavailable);
  const message = (error as Error).message;
  expect(message).toMatch(/never sent a request to the mock \(exit 1/);
  expect(message).toMatch(
    /first lines of stderr:\n.*Cannot find module '\/nonexistent-wirecheck-client\.js'/s,
  );
  expect(message).toContain('no check was run');
  // `cat` runs, prints the request back and never connects: nothing to judge either.
  await expect(runSuite(messagesClientSuite, { client: 'cat' }, { seed: 1, runs: 1 })).rejects.toBeInstanceOf(
    TargetUnavailable,
  );
}, 30_000);

test('a client that prints nothing for a refused connection, and works otherwise, fails that check: it did not break', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wc-silent-'));
  try {
    const script = join(dir, 'client.sh');
    const conforming = nodeCommand('./broken/conforming.mjs');
    await writeFile(
      script,
      `out=$(${conforming}); code=$?\ncase "$out" in *'"connection"'*) exit 1 ;; esac\nprintf '%s\\n' "$out"; exit $code\n`,
    );
    const result = await runAgainst(`sh ${shellQuote(script)}`, {
      only: [`${P}errors.connection-refused`, `${P}request.`],
    });
    const refused = result.checks.find((c) => c.id === `${P}errors.connection-refused`);
    expect(refused?.status).toBe('fail');
    expect(refused?.targetGone).not.toBe(true);
    expect(result.checks.filter((c) => c.skipKind === 'not-run')).toEqual([]);
    expect(result.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([
      `${P}errors.connection-refused`,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);

test('a client that stops working mid-run fails the check that saw it, and the rest are not run', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wc-gone-'));
  try {
    // Works for the probe and two cases, then exits 1 before sending anything, for good. Each
    // run leaves a file of its own and counts them: a counter file rewritten in place could be
    // read empty by a run beside the one writing it, start again from 1, and mend the client.
    const script = join(dir, 'client.sh');
    const runs = join(dir, 'runs');
    const conforming = nodeCommand('./broken/conforming.mjs');
    await writeFile(
      script,
      `mkdir -p ${runs}; mktemp -p ${runs} > /dev/null; n=$(ls ${runs} | wc -l)\nif [ "$n" -gt 3 ]; then echo 'the client broke' >&2; exit 1; fi\nexec ${conforming}\n`,
    );
    const result = await runAgainst(`sh ${shellQuote(script)}`, {
      only: [`${P}request.`, `${P}buffered.final-message`, `${P}stream.utf8-split`, `${P}errors.`],
    });
    const gone = result.checks.filter((c) => c.targetGone === true);
    expect(gone).toHaveLength(1);
    expect(gone[0]!.message).toMatch(/no longer reaches the mock .*the client broke/s);
    // Cases run side by side, so which check meets the broken client first varies; whichever
    // it is, it is the one failure, and every check after it in the catalogue is not run (a
    // case that cannot reach the mock, the refused URL's, is told apart by running the probe).
    const at = result.checks.indexOf(gone[0]!);
    const after = result.checks.slice(at + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((c) => c.skipKind === 'not-run')).toBe(true);
    expect(result.checks.filter((c) => c.status === 'fail')).toHaveLength(1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
