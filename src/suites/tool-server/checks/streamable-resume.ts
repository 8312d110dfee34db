import { type Check, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { detach } from '../../../protocol/clip.js';
import { parseJsonBounded } from '../../../protocol/json/index.js';
import { METHODS, mediaTypeOf, STREAMABLE_HTTP_CONTENT_TYPES } from '../../../protocol/mcp/index.js';
import { createFrameDecoder } from '../../../protocol/sse/index.js';
import type { ToolServerCtx } from '../context.js';
import { openGet } from '../http.js';
import { exchange } from '../rpc.js';
import type { StreamableChannel, StreamablePost } from '../streamable-channel.js';
import { CHECK_MS, failWith } from './common.js';

// Resumability (MCP 2025-03-26 and later, "Resumability and Redelivery"): a server MAY attach SSE
// event ids; if present they MUST be unique across all streams of the session. A client resumes
// with GET + Last-Event-ID; the server MAY replay what came after that id on that stream and MUST
// NOT replay messages that would have been delivered on a different stream. Only the two MUSTs fail.

const CLAUSE = 'MCP 2025-03-26 and later, Transports: Streamable HTTP, Resumability and Redelivery';
/** How long an answer stream is given to end after its last response. */
const END_MS = 2000;
/**
 * How long a resumed stream is read once it carried every message expected of it (a server
 * may keep it open after the replay; extra or repeated messages come in this window).
 */
export const RESUME_READ_MS = 1500;
/**
 * Events of a resumed stream kept beyond the messages expected of it; past them the stream is
 * cut. (A fixed 200 cut a chatty server's replay short of what it was expected to carry.)
 */
const MAX_RESUMED_EVENTS = 200;
/** Characters of event data a resumed stream's kept messages may come from; past it an event keeps no parse. */
const MAX_RESUMED_CHARS = 16 * 1024 * 1024;

/** One event of a resumed stream: its id, and the message its data carried (undefined: no JSON). */
interface ResumedEvent {
  readonly id: string | undefined;
  readonly data: string;
  readonly message: unknown;
}

interface ResumeAnswer {
  readonly status: number | undefined;
  readonly contentType: string | undefined;
  readonly events: ResumedEvent[];
  readonly problem?: string;
}

/** One resumption: the Last-Event-ID sent, the stream it names and what came back. */
export interface ResumeTrial {
  readonly from: string;
  /** The request whose answer stream the id belongs to. */
  readonly requestId: number;
  /** Messages of that stream after the id (a server that replays sends these), as JSON text. */
  readonly after: string[];
  /** Messages of that stream at or before the id (the client has them), as JSON text. */
  readonly upTo: string[];
  /** Messages delivered on the session's other streams, as JSON text, and the ids of their requests. */
  readonly others: string[];
  readonly otherRequestIds: ReadonlySet<unknown>;
  readonly answer: ResumeAnswer;
}

export interface ResumeExercise {
  readonly channel: StreamableChannel;
  /** Every event id of the session's answer streams, with the request its stream answered. */
  readonly ids: { id: string; stream: number }[];
  readonly trials: ResumeTrial[];
  /** Why nothing could be resumed, when so. */
  readonly unexercised?: string;
}

const text = (m: unknown): string => JSON.stringify(m);

function messagesOf(events: readonly { data: string }[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.data === '') continue;
    const parsed = parseJsonBounded(e.data);
    if (!parsed.ok) continue;
    for (const v of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) out.push(text(v));
  }
  return out;
}

/**
 * A GET with Last-Event-ID, read (bounded in time and count) until it ends, or RESUME_READ_MS
 * after it carried every message of `expected`: a loaded server replaying late is waited for
 * up to `replyMs`, not judged to have replayed nothing.
 */
async function resumeGet(
  channel: StreamableChannel,
  from: string,
  expected: readonly string[],
  replyMs: number,
): Promise<ResumeAnswer> {
  const got = await openGet(channel.url, channel.streamHeaders(from), replyMs, channel.targetHeaders);
  if ('problem' in got)
    return { status: undefined, contentType: undefined, events: [], problem: got.problem };
  const contentType = got.res.headers['content-type'];
  const status = got.res.statusCode;
  if (status !== 200 || mediaTypeOf(contentType) !== STREAMABLE_HTTP_CONTENT_TYPES.eventStream) {
    got.req.destroy();
    return { status, contentType, events: [] };
  }
  const events: ResumedEvent[] = [];
  const missing = new Set(expected);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout;
    const finish = () => {
      clearTimeout(timer);
      got.req.destroy();
      resolve({ status, contentType, events });
    };
    const readOn = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(finish, ms);
    };
    readOn(missing.size === 0 ? RESUME_READ_MS : Math.max(replyMs, RESUME_READ_MS));
    let parsedChars = 0;
    const decoder = createFrameDecoder({
      onFrame(f) {
        parsedChars += f.data.length;
        const parsed =
          f.data === '' || parsedChars > MAX_RESUMED_CHARS ? undefined : parseJsonBounded(f.data);
        events.push({
          id: f.id,
          data: detach(f.data.slice(0, 4096)),
          message: parsed?.ok ? parsed.value : undefined,
        });
        if (events.length >= MAX_RESUMED_EVENTS + expected.length) return finish();
        if (missing.size === 0) return;
        for (const m of messagesOf([f])) missing.delete(m);
        if (missing.size === 0) readOn(RESUME_READ_MS);
      },
      onLimit: finish,
    });
    got.res.on('data', (c: Buffer) => decoder.feed(c));
    got.res.on('end', finish);
    got.res.on('error', finish);
  });
}

function describeResumed(a: ResumeAnswer): string {
  if (a.status === undefined) return a.problem ?? 'no answer';
  const shown = a.events.map(
    (e) => `${e.id === undefined ? '' : `id ${e.id}: `}${e.data.slice(0, 160) || '(empty)'}`,
  );
  return `HTTP ${a.status} ${a.contentType ?? ''}, ${a.events.length} event(s)${shown.length > 0 ? `:\n${shown.slice(0, 8).join('\n')}` : ''}`;
}

/** The POST record of the request with this id. */
function postOf(channel: StreamableChannel, id: number): StreamablePost | undefined {
  const needle = `"id":${id}`;
  return channel.posts.find((p) => p.text.includes(needle) && p.text.includes('"method"'));
}

/**
 * A session of its own (resuming must not disturb the others): two pings, each answer stream read
 * to its end; then one stream is resumed from its first event id (what came after it should be
 * replayed) and the other from its last (nothing may be replayed but what is new), side by side.
 */
export function resumeExercise(ctx: ToolServerCtx): Promise<ResumeExercise> {
  return ctx.shared('http-resume', async () => {
    if (ctx.transport !== 'http')
      throw new CheckSkipped('this check applies to the Streamable HTTP transport only');
    const channel = (await ctx.connect('http-resume')) as StreamableChannel;
    // The checks that share it judge what was recorded: closed at once, it holds none of a
    // capped server's sessions to the end.
    try {
      return await resumeOn(channel, ctx);
    } finally {
      await channel.close();
    }
  });
}

/** The exercise of resumeExercise on its own session. */
async function resumeOn(channel: StreamableChannel, ctx: ToolServerCtx): Promise<ResumeExercise> {
  const pings = [
    await exchange(channel, METHODS.ping, undefined, ctx.replyMs),
    await exchange(channel, METHODS.ping, undefined, ctx.replyMs),
  ];
  await channel.settle(END_MS);
  // Every id, not only those of the events kept: a chatty answer's later events are past them.
  const ids = channel.posts.flatMap((p, stream) => p.eventIds.map((id) => ({ id, stream })));
  if (!channel.posts.some((p) => p.kind === 'sse'))
    return {
      channel,
      ids,
      trials: [],
      unexercised: 'the server answered with JSON bodies: no event stream to resume',
    };
  if (ids.length === 0) {
    return {
      channel,
      ids,
      trials: [],
      unexercised:
        'the server attached no event ids to its events (a MAY of the revision): nothing to resume',
    };
  }
  const plans = pings.flatMap((ping, i) => {
    const post = postOf(channel, ping.id);
    const withIds = post?.events.filter((e) => e.id !== undefined && e.id !== '') ?? [];
    if (post === undefined || withIds.length === 0) return [];
    const at = i === 0 ? withIds[0] : withIds[withIds.length - 1];
    if (at === undefined) return [];
    const index = post.events.indexOf(at);
    const others = channel.posts.filter((p) => p !== post);
    return [
      {
        from: at.id as string,
        requestId: ping.id,
        upTo: messagesOf(post.events.slice(0, index + 1)),
        after: messagesOf(post.events.slice(index + 1)),
        others: others.flatMap((p) => (p.kind === 'json' ? p.messages.map(text) : messagesOf(p.events))),
        otherRequestIds: new Set(others.map((p) => requestIdOf(p.text)).filter((id) => id !== undefined)),
      },
    ];
  });
  if (plans.length === 0) {
    return {
      channel,
      ids,
      trials: [],
      unexercised: 'no answer stream of a ping carried an event id',
    };
  }
  const answers = await Promise.all(plans.map((p) => resumeGet(channel, p.from, p.after, ctx.replyMs)));
  const trials = plans.map((p, i) => ({ ...p, answer: answers[i] as ResumeAnswer }));
  const resumed = trials.filter((t) => t.answer.status === 200);
  if (resumed.length === 0) {
    return {
      channel,
      ids,
      trials,
      unexercised: `the server does not resume streams (a MAY): GET with Last-Event-ID was answered ${describeResumed(trials[0]?.answer ?? { status: undefined, contentType: undefined, events: [] })}`,
    };
  }
  return { channel, ids, trials: resumed };
}

function requestIdOf(posted: string): unknown {
  try {
    const v = JSON.parse(posted) as { id?: unknown; method?: unknown };
    return typeof v.method === 'string' ? v.id : undefined;
  } catch {
    return undefined;
  }
}

/** What a resumed stream carried that belongs to another stream of the session. */
export function otherStreamMessages(trial: ResumeTrial): string[] {
  const others = new Set(trial.others);
  const found: string[] = [];
  for (const e of trial.answer.events) {
    if (e.message === undefined) continue;
    for (const m of Array.isArray(e.message) ? e.message : [e.message]) {
      const id = (m as { id?: unknown } | null)?.id;
      const isResponse = typeof m === 'object' && m !== null && ('result' in m || 'error' in m);
      const foreignResponse = isResponse && trial.otherRequestIds.has(id);
      if (
        foreignResponse ||
        (others.has(text(m)) && !trial.upTo.includes(text(m)) && !trial.after.includes(text(m)))
      )
        found.push(text(m));
    }
  }
  return found;
}

/** How a resumed stream's replay departs from "the messages after the id, each once". */
export function replayFaults(trial: ResumeTrial): string[] {
  const replayed = messagesOf(trial.answer.events);
  const faults: string[] = [];
  const tally = (messages: readonly string[]) => {
    const n = new Map<string, number>();
    for (const m of messages) n.set(m, (n.get(m) ?? 0) + 1);
    return n;
  };
  const count = tally(replayed);
  // A message the stream carried twice after the event (two identical notifications) is replayed twice.
  const due = tally(trial.after);
  for (const [m, n] of count) {
    if (n > Math.max(1, due.get(m) ?? 0)) faults.push(`replayed ${n} times: ${m.slice(0, 160)}`);
    if (trial.upTo.includes(m) && !trial.after.includes(m))
      faults.push(
        `replayed a message at or before event ${trial.from}, which the client already has: ${m.slice(0, 160)}`,
      );
  }
  for (const m of trial.after) {
    if (!count.has(m))
      faults.push(`did not replay a message sent after event ${trial.from}: ${m.slice(0, 160)}`);
  }
  return faults;
}

/** A failure naming the first problem, with the resumed streams as seen, when there are problems. */
function failOn(ex: ResumeExercise, problems: readonly string[], summary: string, expected: string): void {
  if (problems.length === 0) return;
  throw failWith(
    `${summary}: ${problems[0]}`,
    expected,
    [...problems.slice(0, 6), ...ex.trials.map((t) => describeResumed(t.answer))].join('\n'),
    [ex.channel],
  );
}

async function resumed(ctx: ToolServerCtx): Promise<ResumeExercise> {
  const ex = await resumeExercise(ctx);
  if (ex.unexercised !== undefined) throw new NotExercised(ex.unexercised);
  return ex;
}

export const resumptionChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.http.event-ids-unique',
    clause: CLAUSE,
    description:
      'SSE event ids, where the server attaches them, are unique across all the streams of a session.',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: servers MAY attach an id to their SSE events; if present, the id MUST be globally unique across all streams within that session (a client resuming with it must name one event of one stream). Every Streamable HTTP server that attaches event ids.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const ex = await resumeExercise(ctx);
      if (ex.ids.length < 2) {
        throw new NotExercised(
          ex.ids.length === 0
            ? (ex.unexercised ?? 'the server attached no event ids')
            : 'the server attached one event id only: nothing to compare',
        );
      }
      const seen = new Map<string, number[]>();
      for (const { id, stream } of ex.ids) seen.set(id, [...(seen.get(id) ?? []), stream]);
      const repeated = [...seen].filter(([, streams]) => streams.length > 1);
      if (repeated.length > 0) {
        const shown = repeated.map(
          ([id, streams]) =>
            `${JSON.stringify(id)} on ${streams.length} events (answer streams of POSTs ${streams.map((s) => s + 1).join(', ')})`,
        );
        throw failWith(
          `${repeated.length} event id(s) were given to more than one event of the session: ${shown.slice(0, 3).join('; ')}`,
          'each event id once across the streams of the session',
          shown.slice(0, 12).join('\n'),
          [ex.channel],
        );
      }
      const notKept = ex.channel.posts.reduce((n, p) => n + p.eventIdsDropped, 0);
      if (notKept > 0) {
        throw new NotExercised(
          `the ${ex.ids.length} event ids kept are unique, but ${notKept} more came past what a session keeps and were not compared`,
        );
      }
    },
  },
  {
    id: 'tool-server.http.resume-same-stream',
    clause: CLAUSE,
    description:
      'A GET with Last-Event-ID naming an event of one answer stream replays no message that was delivered on another stream of the session (where the server resumes at all).',
    level: 'must',
    basis: 'protocol-must',
    rule: 'MCP 2025-03-26: a server MAY replay, on a GET with Last-Event-ID, the messages that would have been sent after that event on the stream that was disconnected; it MUST NOT replay messages that would have been delivered on a different stream. Every Streamable HTTP server that resumes streams.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const ex = await resumed(ctx);
      const problems = ex.trials.flatMap((t) =>
        otherStreamMessages(t).map(
          (m) =>
            `resuming after ${JSON.stringify(t.from)} (the answer to request ${t.requestId}) replayed ${m.slice(0, 200)}`,
        ),
      );
      failOn(
        ex,
        problems,
        `${problems.length} message(s) of another stream were replayed`,
        'only messages of the stream the Last-Event-ID belongs to',
      );
    },
  },
  {
    id: 'tool-server.http.resume-replays-after',
    clause: CLAUSE,
    description:
      'A GET with Last-Event-ID that the server accepts replays the messages of that stream sent after the event, each once, and nothing the client already had.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'MCP 2025-03-26: the server MAY use Last-Event-ID to replay the messages that would have been sent after the last event id, on the stream that was disconnected, and resume it from that point; a server that accepts the resumption and replays less, more or twice loses or duplicates messages.',
    timeoutMs: CHECK_MS,
    async run(ctx) {
      const ex = await resumed(ctx);
      const problems = ex.trials.flatMap((t) =>
        replayFaults(t).map((f) => `resuming after ${JSON.stringify(t.from)}: ${f}`),
      );
      failOn(
        ex,
        problems,
        'the replay departed from the messages after the Last-Event-ID',
        'the messages after the event, each once',
      );
    },
  },
];
