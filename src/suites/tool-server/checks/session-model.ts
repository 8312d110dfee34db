import fc from 'fast-check';
import { type Check, CheckFailure, CheckSkipped, NotExercised } from '../../../harness/check.js';
import { checkProperty, recordJudgedRuns } from '../../../harness/property.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import type { Channel } from '../channel.js';
import type { ToolServerCtx } from '../context.js';
import { rpcEvidence } from '../evidence.js';
import { type Exchange, exchange, postAccepted } from '../rpc.js';
import { noteExchange } from '../silence.js';
import { LATE_REPLY_FACTOR, withLateReplies } from '../slow-call.js';
import { echoTool } from '../tool-choice.js';
import { CLAUSES, toolsIfListed } from './common.js';
import { openFailure, settleOpens } from './open-within-capacity.js';

/** Sessions opened across the quick tier's runs, at least (the issue's bar). */
export const MIN_SESSIONS = 50;
/** Open sessions at most at any time within a run. */
const MAX_OPEN = 40;
/** Wall-clock budget; past it the remaining runs (and shrinking) pass without acting. */
const MODEL_MS = 60_000;

interface Model {
  /** Labels of the sessions open now, in opening order. */
  open: string[];
  opened: number;
  /** The server refused a new session for capacity (503, 429): no more are opened this run. */
  full: boolean;
  /**
   * Past this (performance.now()) the run's remaining commands are not run: a slow server's
   * settles may each wait its late replies, and the check must end within its timeout.
   */
  readonly deadline: number;
}

/** Whether the run may still act (see Model.deadline). */
const inTime = (m: Readonly<Model>) => performance.now() < m.deadline;

/** What the runs of one check saw of the server's capacity. */
interface Capacity {
  /** The first refusal, as the server gave it. */
  refused?: string;
  /** The most sessions open at once in any run. */
  mostOpen: number;
}

interface Pending {
  readonly label: string;
  readonly method: string;
  readonly exchange: Promise<Exchange>;
  /** Text an echo tool must give back, when the call went to one. */
  readonly echo?: string;
}

interface Real {
  readonly ctx: ToolServerCtx;
  readonly sessions: Map<string, Channel>;
  /** Every session of the run, closed ones too: a stray reply on any of them is a misrouting. */
  readonly all: Channel[];
  pending: Pending[];
  readonly echo: ReturnType<typeof echoTool>;
  readonly capacity: Capacity;
}

interface Settled {
  readonly p: Pending;
  ex: Exchange;
  /** How long its reply was waited for after the budget (withLateReplies). */
  lateMs: number;
}

/** The echo texts of the run (`wirecheck-<session>-<n>`) a reply carries, with their sessions. */
const ECHO_TEXT = /wirecheck-(S\d+)-\d+/g;

/**
 * The reply of `s` landed on another session, or an echo came back with another session's
 * text. An echo without its own text and no other is no routing evidence: what a tool named
 * like an echo gives back is its own (it may change the text, or refuse it).
 */
function misrouted(real: Real, s: Settled): CheckFailure | undefined {
  const { p, ex } = s;
  if (ex.reply === undefined) {
    const elsewhere = real.all.find((c) => c.peer.label !== p.label && c.peer.hasReply(ex.id));
    if (elsewhere === undefined) return undefined;
    return new CheckFailure(
      `the reply to request ${ex.id} of session ${p.label} landed on session ${elsewhere.peer.label}, and none on its own stream`,
      'every request on an open session answered on its own stream',
      'nothing',
      rpcEvidence('sessions of the model run', real.all),
    );
  }
  const text = p.echo === undefined ? '' : JSON.stringify(ex.reply);
  const foreign = [...text.matchAll(ECHO_TEXT)].find((m) => m[1] !== p.label);
  if (p.echo !== undefined && !text.includes(p.echo) && foreign !== undefined) {
    return new CheckFailure(
      `the echo call on session ${p.label} came back without its own text ${p.echo}, with session ${foreign[1]}'s ${foreign[0]}`,
      p.echo,
      JSON.stringify(ex.reply).slice(0, 300),
      rpcEvidence('sessions of the model run', real.all, `"id":${ex.id}`),
    );
  }
  return undefined;
}

/** A session received a reply to a request it did not send. */
function strayReply(real: Real): CheckFailure | undefined {
  const stray = real.all.find((s) => s.peer.strayReplies.length > 0);
  if (stray === undefined) return undefined;
  const reply = stray.peer.strayReplies[0]!;
  return new CheckFailure(
    `session ${stray.peer.label} received a reply to another session's request: ${JSON.stringify(reply).slice(0, 300)}`,
    'each reply on the stream of the session that sent the request',
    JSON.stringify(reply).slice(0, 300),
    rpcEvidence('sessions of the model run', real.all, JSON.stringify(reply.id)),
  );
}

/** Throw the first misrouting seen among `settled`, or a stray reply. */
function throwMisrouting(real: Real, settled: readonly Settled[]): void {
  for (const s of settled) {
    const failure = misrouted(real, s);
    if (failure !== undefined) throw failure;
  }
  const stray = strayReply(real);
  if (stray !== undefined) throw stray;
}

/**
 * Wait for every pending call of the sessions still open: each must be answered on its own
 * stream. A reply seen elsewhere fails at once; one missing gets the late window first. Then a
 * request whose POST was accepted and still has no reply on a session still open was lost (a
 * server may route it to a session it closed, where it is unseen); one whose POST got no
 * response at all is a server busy with slow calls, which answers nothing meanwhile: where its
 * reply lands was not seen, so the run is not judged.
 */
async function settle(real: Real): Promise<void> {
  const pending = real.pending;
  real.pending = [];
  const settled: Settled[] = (
    await Promise.all(pending.map(async (p) => ({ p, ex: await p.exchange, lateMs: 0 })))
  ).filter(
    (s) => real.sessions.has(s.p.label), // closed meanwhile: its reply may be dropped
  );
  throwMisrouting(real, settled);
  const outcomes = await withLateReplies(
    settled.map((s) => ({ channel: real.sessions.get(s.p.label)!, ex: s.ex })),
    real.ctx.replyMs,
  );
  settled.forEach((s, i) => {
    s.ex = { ...s.ex, reply: outcomes[i]!.reply };
    s.lateMs = outcomes[i]!.lateMs;
  });
  // For the silence watch, what the requests the server took got in the end: any reply means
  // it is talking (a lost reply is judged below); none at all, it may be gone (exit 2).
  const answered = settled.find((s) => s.ex.reply !== undefined);
  for (const s of answered === undefined ? settled.filter((s) => postAccepted(s.ex.post)) : [answered]) {
    noteExchange(real.sessions.get(s.p.label)!, s.p.method, s.ex);
  }
  throwMisrouting(real, settled);
  const still = settled.filter((s) => s.ex.reply === undefined);
  const busy = (s: Settled) =>
    s.ex.post?.timedOut === true && real.sessions.get(s.p.label)!.gone() === undefined;
  const lost = still.find((s) => !busy(s));
  if (lost !== undefined) {
    throw new CheckFailure(
      `a request on session ${lost.p.label} got no reply on its stream (${lost.ex.why})${lost.lateMs > 0 ? `, nor in the ${lost.lateMs} ms more it was given` : ''}`,
      'every request on an open session answered on its own stream',
      'nothing',
      rpcEvidence('sessions of the model run', real.all),
    );
  }
  const first = still[0];
  if (first !== undefined) {
    throw new NotExercised(
      `a request on session ${first.p.label} got no HTTP response to its POST (${first.ex.post?.problem}) and no reply on its stream for ${first.lateMs} ms more, though the session stayed open: a server that serves one request at a time, busy with slow calls, looks the same (JSON-RPC sets no deadline), so where its reply lands was not seen`,
    );
  }
}

async function openOne(m: Model, r: Real): Promise<void> {
  await openMany(1, m, r);
}

/**
 * Open `n` sessions at once (a server slow to initialize costs one wait, not n), recorded in
 * the order they were asked for, so the same commands pick the same sessions.
 */
async function openMany(n: number, m: Model, r: Real): Promise<void> {
  const labels = Array.from({ length: n }, () => {
    m.opened += 1;
    return `S${m.opened}`;
  });
  // SSE: a new stream; Streamable HTTP: a new session (initialize without a session id).
  const { opened, refusal, failed } = await settleOpens(
    labels.map((label) =>
      r.ctx.transport === 'sse' ? r.ctx.openSession(label, true) : r.ctx.connect(label),
    ),
  );
  labels.forEach((label, i) => {
    const session = opened[i];
    if (session === undefined) return;
    r.sessions.set(label, session);
    r.all.push(session);
    m.open.push(label);
  });
  r.capacity.mostOpen = Math.max(r.capacity.mostOpen, m.open.length);
  // A session refused for capacity is no routing fault: the run goes on with those it has.
  if (failed.length > 0) throw openFailure(failed, n, r.all);
  if (refusal !== undefined) {
    m.full = true;
    r.capacity.refused ??= refusal.message;
  }
}

class OpenSession implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => inTime(m) && !m.full && m.open.length < MAX_OPEN;
  run = (m: Model, r: Real) => openOne(m, r);
  toString = () => 'open a session';
}

class CloseSession implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => inTime(m) && m.open.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const label = m.open[this.pick % m.open.length]!;
    m.open = m.open.filter((l) => l !== label);
    const channel = r.sessions.get(label)!;
    r.sessions.delete(label);
    await channel.close();
  }
  toString = () => `close open session #${this.pick}`;
}

/** settle judges the unanswered calls, after their late window (and notes them for silence then). */
const JUDGED_IN_SETTLE = { countSilence: false } as const;

class CallOn implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly useTool: boolean,
  ) {}
  check = (m: Readonly<Model>) => inTime(m) && m.open.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const label = m.open[this.pick % m.open.length]!;
    const channel = r.sessions.get(label)!;
    const ms = r.ctx.replyMs;
    if (this.useTool && r.echo !== undefined) {
      const text = `wirecheck-${label}-${r.pending.length}`;
      const params = { name: r.echo.tool.name, arguments: { [r.echo.property]: text } };
      const method = METHODS.toolsCall;
      r.pending.push({
        label,
        method,
        exchange: exchange(channel, method, params, ms, JUDGED_IN_SETTLE),
        echo: text,
      });
    } else {
      // Not awaited: calls on several sessions interleave until the next settle.
      const method = METHODS.ping;
      r.pending.push({ label, method, exchange: exchange(channel, method, undefined, ms, JUDGED_IN_SETTLE) });
    }
  }
  toString = () => `call on open session #${this.pick}${this.useTool ? ' (echo)' : ''}`;
}

class Settle implements fc.AsyncCommand<Model, Real> {
  check = inTime;
  run = (_m: Model, r: Real) => settle(r);
  toString = () => 'wait for every reply';
}

const commands = fc.commands(
  [
    fc.constant(new OpenSession()),
    fc.nat().map((k) => new CloseSession(k)),
    fc.tuple(fc.nat(), fc.boolean()).map(([k, t]) => new CallOn(k, t)),
    fc.tuple(fc.nat(), fc.boolean()).map(([k, t]) => new CallOn(k, t)),
    fc.constant(new Settle()),
  ],
  { maxCommands: 40 },
);

/** The session-model check of one HTTP transport (SSE streams, or Streamable HTTP sessions). */
function sessionModelCheck(transport: 'sse' | 'http'): Check<ToolServerCtx> {
  const sse = transport === 'sse';
  return {
    id: `tool-server.${transport}.session-model`,
    clause: sse
      ? `${CLAUSES.session}; ${CLAUSES.errors} ("Responses routed to wrong client")`
      : `MCP 2025-03-26 and later, Transports: Streamable HTTP, Session Management; ${CLAUSES.errors} ("Responses routed to wrong client")`,
    description: `Model-based: sessions opened and closed at random with calls interleaved across them (at least ${MIN_SESSIONS} sessions in the quick tier; each run begins with one call on every open session at once); every reply lands ${sse ? 'on the stream' : 'in the POST answer'} of the session that asked (one late gets ${LATE_REPLY_FACTOR} reply budgets more, the late ones waited for together).`,
    level: 'must',
    basis: sse ? 'spec' : 'protocol-must',
    rule: sse
      ? 'The spec: each session has its own stream, and a server keeps a registry mapping each session id to it, so every reply lands on the stream of the session that asked, however sessions open, close and interleave. Every SSE tool server.'
      : "MCP 2025-03-26: the responses to the requests of a POST go in that POST's answer (a JSON body or its event stream) and a server MUST NOT send a message on more than one stream; the spec counts responses routed to the wrong client as a server fault. However sessions open, end (DELETE) and interleave, every reply lands in the answer to the POST that asked. Every Streamable HTTP tool server.",
    timeoutMs: 120_000,
    async run(ctx, env) {
      if (ctx.transport !== transport)
        throw new CheckSkipped(`this check applies to the ${sse ? 'SSE' : 'Streamable HTTP'} transport only`);
      const runs = Math.max(
        1,
        Math.min(env.runs, env.full ? (ctx.options.maxFullModelRuns ?? 20) : (ctx.options.modelRuns ?? 5)),
      );
      const perRun = Math.min(MAX_OPEN, Math.max(2, Math.ceil(MIN_SESSIONS / runs)));
      // No tools to call (tools/list unreadable: its own checks say so) leaves pings only.
      const echo = echoTool(await toolsIfListed(ctx));
      const deadline = performance.now() + MODEL_MS;
      const capacity: Capacity = { mostOpen: 0 };
      let judged = 0;
      let outOfTime = false;
      await checkProperty(
        env,
        commands,
        async (cmds) => {
          if (performance.now() > deadline) {
            outOfTime = true;
            return;
          }
          if (!outOfTime) judged++;
          const real: Real = { ctx, sessions: new Map(), all: [], pending: [], echo, capacity };
          const model: Model = { open: [], opened: 0, full: false, deadline };
          try {
            await openMany(perRun, model, real);
            // Every run starts with one call on each open session at once: replies of concurrent
            // requests must not trade places, however short the generated commands are.
            for (let i = 0; i < model.open.length; i++) await new CallOn(i, i % 2 === 1).run(model, real);
            await settle(real);
            await fc.asyncModelRun(() => ({ model, real }), cmds);
            await settle(real);
          } finally {
            await Promise.all(real.all.map((s) => s.close()));
          }
        },
        { runs },
      );
      if (outOfTime) recordJudgedRuns(env, judged);
      if (capacity.refused !== undefined && capacity.mostOpen < 2) {
        throw new NotExercised(
          `the server refused new sessions for capacity (${capacity.refused}) with at most ${capacity.mostOpen} of the model's open at once: routing needs 2 sessions at once to judge`,
        );
      }
    },
  };
}

export const sessionModelChecks: Check<ToolServerCtx>[] = [
  sessionModelCheck('sse'),
  sessionModelCheck('http'),
];
