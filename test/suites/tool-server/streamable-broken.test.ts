import { describe, expect, test } from 'vitest';
import { type ExpectedVerdicts, verdictPhrase } from '../../broken-verdicts.js';
import { httpTarget, notPassed, quickSuite, runAgainst, statusById, testSuite } from './helpers.js';

/** A test server of servers/streamable-<name>.mjs, started by --start on a free port. */
const HTTP_CHECKS = [
  'session-id',
  'notification-202',
  'request-answer',
  'answer-stream-ends',
  'answer-before-close',
  'session-required',
  'unknown-session-404',
  'deleted-session-404',
  'get-stream',
  'origin-refused',
  'no-cross-session-reply',
  'session-model',
  'event-ids-unique',
  'resume-same-stream',
  'resume-replays-after',
].map((id) => `tool-server.http.${id}`);

/** The resumption checks: not exercised on a server without event ids or without resumption. */
const RESUME_CHECKS = ['event-ids-unique', 'resume-same-stream', 'resume-replays-after'];

interface Case extends Pick<ExpectedVerdicts, 'fails' | 'warns' | 'skips'> {
  readonly server: string;
  readonly flaw: string;
  /** The resumption checks that judged something (the rest are not exercised). */
  readonly resumes?: readonly string[];
  /** Run with the default reply budget (5 s) instead of quickSuite's 1.5 s. */
  readonly defaultBudget?: true;
  /** The revision asked for (--protocol); the default offer otherwise (the server answers 2025-03-26). */
  readonly protocol?: '2025-11-25';
}

const CASES: Case[] = [
  { server: 'conforming', flaw: 'conforms (event-stream answers)' },
  { server: 'json', flaw: 'conforms (JSON answers)' },
  { server: 'notification-200', flaw: 'answers a notification 200 with a body', fails: ['notification-202'] },
  {
    // Node sends the headers of a response with its first body bytes unless they are flushed.
    server: 'get-unflushed',
    flaw: 'opens the GET stream without sending its headers until a first event (none comes)',
    skips: ['get-stream'],
  },
  {
    server: 'get-reset',
    flaw: 'resets the connection of a GET (neither a stream nor 405)',
    fails: ['get-stream'],
  },
  {
    server: 'session-error-200',
    flaw: 'refuses a request without the session id with 200 and a JSON-RPC error, not 400',
    warns: ['session-required'],
  },
  {
    server: 'refuse-unknown-input',
    flaw: 'refuses a notification it does not know, and a response to no request of its own, with 400 (an HTTP error: allowed)',
  },
  {
    server: 'initialized-200',
    flaw: 'answers notifications/initialized 200 with a body, refusing the other notifications and responses with 400',
    fails: ['notification-202'],
  },
  {
    server: 'ignore-sessions',
    flaw: 'issues a session id but ignores it (no id, any id, a deleted id: all served; not requiring it, session-required does not apply)',
    fails: ['deleted-session-404'],
    warns: ['unknown-session-404'],
    skips: ['session-required'],
  },
  { server: 'unknown-200', flaw: 'serves a session id it never issued', warns: ['unknown-session-404'] },
  {
    // A bridge that starts a process per request answered 25 pings at once over 5 s late on 2
    // cores. Replies past the budget on answer streams still open used to count as lost (the
    // session model) and as silence (the routing burst: the server "gone").
    server: 'burst-reply',
    flaw: 'answers requests past 3 at once 3 s late, on their open event streams (past the 1.5 s budget)',
  },
  {
    server: 'burst-lost',
    flaw: 'never answers requests past 3 at once, their event streams left open',
    fails: ['session-model'],
  },
  {
    server: 'broadcast',
    flaw: 'writes every response on every GET stream too',
    fails: ['no-cross-session-reply'],
  },
  {
    server: 'broadcast-batch',
    flaw: 'writes every response on every GET stream too, as a batch of one',
    fails: ['no-cross-session-reply'],
  },
  { server: 'bad-session-id', flaw: 'issues a session id with spaces', fails: ['session-id'] },
  { server: 'any-origin', flaw: 'accepts any Origin', fails: ['origin-refused'] },
  { server: 'get-json', flaw: 'answers GET with JSON', fails: ['get-stream'] },
  { server: 'stream-open', flaw: 'never ends its answer streams', warns: ['answer-stream-ends'] },
  { server: 'text-plain', flaw: 'answers tools/list requests with text/plain', fails: ['request-answer'] },
  {
    server: 'newest-answer',
    flaw: 'writes each reply into the newest answer stream still open (concurrent replies swapped)',
    fails: ['no-cross-session-reply', 'session-model'],
  },
  { server: 'resumable', flaw: 'conforms (event ids, priming events, resumption)', resumes: RESUME_CHECKS },
  {
    server: 'poll-answers',
    flaw: 'ends each answer stream after its priming event and a retry, the response replayed to a GET with Last-Event-ID (polling, as MCP 2025-11-25 allows: conforming there)',
    resumes: RESUME_CHECKS,
    protocol: '2025-11-25',
  },
  {
    server: 'poll-answers',
    flaw: 'polls its answers so under 2025-03-26, whose servers should not end an answer stream before its response',
    warns: ['answer-before-close'],
    resumes: RESUME_CHECKS,
  },
  {
    // Before, wirecheck put such an id in Last-Event-ID as is: Node threw, unhandled, and the run
    // stopped on a harness error.
    server: 'poll-wide-ids',
    flaw: 'polls its answers with event ids outside latin1 (sent back in Last-Event-ID as their UTF-8 bytes)',
    resumes: RESUME_CHECKS,
    protocol: '2025-11-25',
  },
  {
    server: 'poll-no-retry',
    flaw: 'polls its answers under 2025-11-25 without a retry field before the stream ends',
    warns: ['answer-before-close'],
    resumes: RESUME_CHECKS,
    protocol: '2025-11-25',
  },
  {
    server: 'resume-late',
    flaw: 'replays 2.5 s after the resuming GET and keeps the stream open (as a loaded server may)',
    resumes: RESUME_CHECKS,
    defaultBudget: true,
  },
  {
    server: 'resume-other-stream',
    flaw: 'replays the response of another stream when resuming',
    fails: ['resume-same-stream'],
    resumes: RESUME_CHECKS,
  },
  {
    server: 'resume-inclusive',
    flaw: 'replays the event named by Last-Event-ID too (a duplicate)',
    warns: ['resume-replays-after'],
    resumes: RESUME_CHECKS,
  },
  {
    // Its polled answers are read on through GETs that get the named event again: the same
    // event redelivered, not one id given to two events.
    server: 'poll-inclusive',
    flaw: 'polls its answers and replays the event named by Last-Event-ID too (MCP 2025-11-25)',
    warns: ['resume-replays-after'],
    resumes: RESUME_CHECKS,
    protocol: '2025-11-25',
  },
  {
    server: 'resume-nothing',
    flaw: 'accepts a resumption but replays nothing (the response after the priming event is lost)',
    warns: ['resume-replays-after'],
    resumes: RESUME_CHECKS,
  },
  {
    server: 'same-event-ids',
    flaw: 'numbers the events of every stream from 1 (ids not unique in the session)',
    fails: ['event-ids-unique'],
    resumes: ['event-ids-unique'],
  },
];

function expected(c: Case): Record<string, string> {
  const want: Record<string, string> = Object.fromEntries(HTTP_CHECKS.map((id) => [id, 'pass']));
  for (const id of ['answer-stream-ends', 'answer-before-close'])
    want[`tool-server.http.${id}`] = c.server === 'json' ? 'skip' : 'pass';
  for (const id of RESUME_CHECKS) if (!c.resumes?.includes(id)) want[`tool-server.http.${id}`] = 'skip';
  for (const id of c.fails ?? []) want[`tool-server.http.${id}`] = 'fail';
  for (const id of c.warns ?? []) want[`tool-server.http.${id}`] = 'warn';
  for (const id of c.skips ?? []) want[`tool-server.http.${id}`] = 'skip';
  return want;
}

describe('Streamable HTTP tool servers, one flaw each (--http)', () => {
  for (const c of CASES) {
    test(`a server that ${c.flaw} ${verdictPhrase(c)}${c.protocol === undefined ? '' : ` (--protocol ${c.protocol})`}`, async () => {
      const suite = c.defaultBudget ? testSuite : quickSuite;
      const result = await runAgainst(
        await httpTarget(`streamable-${c.server}`, c.protocol),
        { only: HTTP_CHECKS },
        suite,
      );
      expect(statusById(result)).toEqual(expected(c));
    }, 90_000);
  }
});

test('a reply lost on an answer stream still open fails the session model only after the late window, which the message names', async () => {
  const id = 'tool-server.http.session-model';
  const result = await runAgainst(await httpTarget('streamable-burst-lost'), { only: [id] }, quickSuite);
  const model = result.checks.find((c) => c.id === id);
  expect(model?.status).toBe('fail');
  expect(model?.message).toMatch(
    /^a request on session S\d+ got no reply on its stream \(no reply within 1500 ms; .*\), nor in the 4500 ms more it was given/,
  );
}, 90_000);

test('a server that answers nothing after initialize is silence, not a lost reply: the session model says the server stopped answering', async () => {
  // The model's calls count for the silence watch only after their late window, and only when
  // none of them was answered: this server's stay unanswered, so the watch ends the run.
  const id = 'tool-server.http.session-model';
  const result = await runAgainst(
    await httpTarget('streamable-silent-after-initialize'),
    { only: [id] },
    quickSuite,
  );
  const model = result.checks.find((c) => c.id === id);
  expect(model?.status).toBe('fail');
  expect(model?.message).toMatch(
    /^the server left 3 requests in a row unanswered \(tools\/list, ping, ping\)/,
  );
}, 90_000);

test('a server that refuses a batch under 2025-03-26 fails batch-answered, said to be refused by its status, not waited on', async () => {
  const id = 'tool-server.jsonrpc.batch-answered';
  const result = await runAgainst(await httpTarget('streamable-no-batch'), { only: [id] }, quickSuite);
  const batch = result.checks.find((c) => c.id === id);
  expect(batch?.status).toBe('fail');
  expect(batch?.message).toMatch(
    /^a batch of 2 pings got no response for wirecheck-batch-\d+, wirecheck-batch-\d+: the POST was refused with HTTP 400, so none can follow/,
  );
  expect(batch?.actual).toContain('batches are not supported');
}, 90_000);

describe('the conforming Streamable HTTP test servers, every check (2025-03-26, the default offer)', () => {
  for (const [server, how] of [
    ['conforming', 'event-stream answers'],
    ['json', 'JSON answers'],
  ] as const) {
    test(`${how}: no check fails or warns, and a JSON-RPC batch is answered`, async () => {
      const result = await runAgainst(
        await httpTarget(`streamable-${server}`),
        { only: ['tool-server.'] },
        quickSuite,
      );
      expect(notPassed(result)).toEqual([]);
      expect(statusById(result)['tool-server.jsonrpc.batch-answered']).toBe('pass');
    }, 90_000);
  }
});

describe('the MCP-Protocol-Version header of a 2025-06-18 session (--protocol 2025-06-18)', () => {
  const id = 'tool-server.http.protocol-version-header';
  for (const [server, flaw, verdict] of [
    ['conforming', 'answers a request with an unsupported MCP-Protocol-Version 400', 'pass'],
    ['ignore-version-header', 'serves a request with an unsupported MCP-Protocol-Version', 'fail'],
  ] as const) {
    test(`a server that ${flaw} ${verdict === 'pass' ? 'passes' : 'fails'} ${id}`, async () => {
      const target = { ...(await httpTarget(`streamable-${server}`)), protocol: '2025-06-18' as const };
      const result = await runAgainst(target, { only: [id] }, quickSuite);
      expect(statusById(result)).toEqual({ [id]: verdict });
    }, 60_000);
  }
});
