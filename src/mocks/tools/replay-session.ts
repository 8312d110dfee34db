import {
  type BodyMessage,
  bodyMessages,
  errorResponse,
  JSONRPC_ERRORS,
  type JsonRpcId,
  successResponse,
} from '../../protocol/jsonrpc/index.js';
import { METHODS, TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';
import { encodeFrame } from '../../protocol/sse/index.js';
import { mixSeed, type Random, seededRandom } from '../messages/random.js';
import type { ToolJournal } from './journal.js';
import { journalSent } from './journal-sent.js';
import { withLiveId } from './live-id.js';
import { matchKeyOf, type ToolReplayPart, type ToolReplayPlan, type ToolReplayStep } from './replay-plan.js';
import type { ToolScenario } from './scenario.js';
import type { SessionChannel } from './session.js';

export interface ToolReplayOptions {
  /** 1 (default): as recorded; 2: twice as fast; 0: as fast as possible (`--speed max`). */
  readonly speed?: number;
}

/**
 * One mock session that replays a recorded tool session (see toolReplayPlanOf). A live request
 * is matched with the first recorded request of the same method (and, for `tools/call`,
 * tool name) not matched yet; the recorded reply goes out with the live id in place of the
 * recorded one, the recorded delay after the request (divided by the speed). Everything
 * else the server sent (its notifications and requests, keep-alive comments) goes out in
 * recorded order at its recorded time, counted from the latest client message matched (or
 * the session's start), so a faster or slower client moves the clock with it. SSE chunk
 * boundaries are kept: each recorded chunk is one write.
 *
 * A live request the recording cannot answer gets `{}` when it is a `ping`, else a
 * JSON-RPC error -32603 naming it. A reply whose request has not come when the client asks
 * for a later one (the client skipped or reordered a request) is passed over, so the later
 * one is not held behind it; it goes out at once, with no recorded delay or fault, if its
 * request comes after all. Faults of the scenario layered on top: `replyDelayMs`,
 * `notifications`, `nonJsonStdout` (before a `tools/call` reply), `closeStreamAfter`; the
 * SSE transport adds `endpoint`, `postStatus`, `keepAliveMs` and `commentFrames` (before
 * the frames it writes itself) as usual.
 */
export class ReplayToolSession {
  private closedFlag = false;
  private started = false;
  private sent = 0;
  private readonly speed: number;
  private readonly random: Random;
  private readonly liveIds = new Map<number, JsonRpcId>();
  private readonly liveAt = new Map<number, number>();
  private readonly consumed = new Set<number>();
  /** Recorded replies passed over, by the recorded request they answer: sent when it arrives. */
  private readonly passedOver = new Map<number, ToolReplayStep>();
  private anchor = { live: 0, recorded: 0 };
  private pulse: { promise: Promise<void>; resolve: () => void } = newPulse();
  private idle = true;
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private midStep = false;
  private extras: { message: unknown; text: string }[] = [];
  private out: Buffer[] = [];
  private outChunk = -1;
  private timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly plan: ToolReplayPlan,
    private readonly scenario: ToolScenario,
    private readonly journal: ToolJournal,
    private readonly channel: SessionChannel,
    options: ToolReplayOptions = {},
    sessionIndex = 0,
  ) {
    this.speed = options.speed ?? 1;
    this.random = seededRandom(mixSeed(scenario.seed, sessionIndex));
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Call once the channel is open (after the SSE endpoint event). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.anchor = { live: performance.now(), recorded: 0 };
    if (this.scenario.faults.closeStreamAfter === 0) {
      this.close();
      return;
    }
    this.idle = false;
    this.running = true;
    void this.run().finally(() => {
      this.running = false;
      this.becomeIdle();
    });
  }

  /** One parsed JSON value from the client (its text is for the scripted session's ids: a replay answers as recorded). */
  receive(value: unknown, _text?: string): void {
    for (const c of bodyMessages(value)) {
      if (this.closedFlag) return;
      this.receiveOne(c);
    }
    // Answers to the server's own requests need nothing; every message may unblock a step.
    this.wake();
  }

  private receiveOne(c: BodyMessage): void {
    if (c.kind === 'invalid') {
      this.extra(errorResponse(c.id, JSONRPC_ERRORS.invalidRequest, `Invalid Request: ${c.reason}`));
      return;
    }
    if (c.kind === 'request' || c.kind === 'notification') {
      const { kind, key } = matchKeyOf(c.message);
      const at = this.plan.client.findIndex(
        (m, i) => !this.consumed.has(i) && m.kind === kind && m.key === key,
      );
      if (at >= 0) {
        const now = performance.now();
        this.consumed.add(at);
        this.liveAt.set(at, now);
        if (c.kind === 'request') this.liveIds.set(at, c.message.id);
        this.anchor = { live: now, recorded: this.plan.client[at]!.atMs };
        const passed = this.passedOver.get(at);
        if (passed) {
          this.passedOver.delete(at);
          const text = this.liveText(passed);
          this.extra(JSON.parse(text) as unknown, text);
        }
      } else if (c.kind === 'request') {
        this.extra(
          c.message.method === METHODS.ping
            ? successResponse(c.message.id, {})
            : errorResponse(
                c.message.id,
                JSONRPC_ERRORS.internalError,
                `wirecheck replay: the recording has no ${key} request left to answer`,
              ),
        );
      }
    }
  }

  /** A line or body that was not JSON: JSON-RPC's parse error, id null. */
  receiveUnparseable(reason: string): void {
    if (this.closedFlag) return;
    this.extra(errorResponse(null, JSONRPC_ERRORS.parseError, `Parse error: ${reason}`));
  }

  /** Resolves once the replay waits for a client message (or ended): nothing more is due by itself. */
  drain(): Promise<void> {
    if (this.idle || this.closedFlag) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The client went away: stop every timer, send nothing more. */
  dispose(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.wake();
    this.becomeIdle();
  }

  /** End the session from the server side. */
  close(): void {
    if (this.closedFlag) return;
    this.flush();
    this.dispose();
    journalSent(this.journal, this.channel, 'closed', 'the mock closed the session');
    this.channel.close();
  }

  private async run(): Promise<void> {
    for (const [at, step] of this.plan.steps.entries()) {
      if (step.replyTo !== undefined) {
        const replyTo = step.replyTo;
        while (!this.liveIds.has(replyTo) && !this.closedFlag && !this.askedPast(at)) {
          this.flush();
          this.becomeIdle();
          await this.pulse.promise;
        }
        if (!this.liveIds.has(replyTo) && !this.closedFlag) {
          // The client asked for a later reply first (a tools/call without the recorded
          // tools/list, say): this one goes out when its request comes, if it does.
          this.passedOver.set(replyTo, step);
          continue;
        }
      }
      if (this.closedFlag) return;
      if (step.replyTo !== undefined) this.beforeReply(step);
      if (this.plan.transport !== this.channel.transport || this.channel.transport === 'http') {
        // Another transport's bytes mean nothing here: its messages go out in this one's framing
        // (Streamable HTTP routes each message on its own: a response to its request's answer).
        if (step.kind === 'raw') continue;
        await this.waitFor(step, step.parts[0]!);
        if (this.closedFlag) return;
        this.flush();
        this.channel.write(this.liveText(step));
        this.sentMessage(step);
        this.flushExtras();
        continue;
      }
      const parts = step.replyTo === undefined ? step.parts : this.remapped(step);
      this.midStep = step.kind === 'message';
      for (const part of parts) {
        await this.waitFor(step, part);
        if (this.closedFlag) return;
        if (part.chunk !== this.outChunk) this.flush();
        this.out.push(part.bytes);
        this.outChunk = part.chunk;
      }
      this.midStep = false;
      if (step.kind === 'message') this.sentMessage(step);
      this.flushExtras();
      if (this.closedFlag) return;
    }
    this.flush();
    if (this.plan.serverEnded) this.close();
  }

  /** Whether the client asked for a reply recorded after step `at`. */
  private askedPast(at: number): boolean {
    for (let i = at + 1; i < this.plan.steps.length; i++) {
      const replyTo = this.plan.steps[i]!.replyTo;
      if (replyTo !== undefined && this.liveIds.has(replyTo)) return true;
    }
    return false;
  }

  /** Wait until the part is due: its recorded time on the clock of its anchor, over the speed. */
  private async waitFor(step: ToolReplayStep, part: ToolReplayPart): Promise<void> {
    for (;;) {
      const extra = step.replyTo === undefined ? 0 : this.scenario.faults.replyDelayMs;
      if (this.closedFlag || (this.speed === 0 && extra === 0)) return;
      const anchor =
        step.replyTo === undefined
          ? this.anchor
          : { live: this.liveAt.get(step.replyTo)!, recorded: this.plan.client[step.replyTo]!.atMs };
      const scaled = this.speed === 0 ? 0 : (part.atMs - anchor.recorded) / this.speed;
      const due = anchor.live + scaled + extra;
      const wait = due - performance.now();
      if (wait <= 0.5) return;
      this.flush();
      // A client message moves the anchor: the wait is worked out again then.
      await Promise.race([this.sleep(wait), this.pulse.promise]);
    }
  }

  /** The reply's parts with the live id in place of the recorded one, cut where the recording was. */
  private remapped(step: ToolReplayStep): readonly ToolReplayPart[] {
    const text = this.liveText(step);
    if (this.plan.transport === 'stdio') {
      const part = step.parts[0]!;
      return [{ ...part, bytes: Buffer.from(`${text}\n`) }];
    }
    const frame = Buffer.concat(step.parts.map((p) => p.bytes)).toString('utf8');
    const at = frame.indexOf(step.text!);
    const rewritten = Buffer.from(
      at < 0
        ? encodeFrame(TOOL_SSE_EVENTS.message, text)
        : frame.slice(0, at) + text + frame.slice(at + step.text!.length),
    );
    const out: ToolReplayPart[] = [];
    let from = 0;
    for (const [i, part] of step.parts.entries()) {
      const last = i === step.parts.length - 1;
      const to = last ? rewritten.length : Math.min(rewritten.length, from + part.bytes.length);
      out.push({ ...part, bytes: rewritten.subarray(from, to) });
      from = to;
    }
    return out;
  }

  private beforeReply(step: ToolReplayStep): void {
    const { notifications, nonJsonStdout } = this.scenario.faults;
    for (let i = 0; i < notifications; i++) this.extra(this.unknownNotification());
    const request = this.plan.client[step.replyTo!];
    if (
      nonJsonStdout !== undefined &&
      this.channel.writeBanner &&
      request?.key.startsWith(`${METHODS.toolsCall} `)
    ) {
      this.flush();
      journalSent(this.journal, this.channel, 'banner', nonJsonStdout);
      this.channel.writeBanner(nonJsonStdout);
    }
  }

  /** The message's text as it goes out: the reply's id replaced by the live one. */
  private liveText(step: ToolReplayStep): string {
    const text =
      step.replyTo === undefined
        ? step.text!
        : withLiveId(step.text!, step.value, this.liveIds.get(step.replyTo));
    // stdio frames a message as one line, and an SSE frame's data or an HTTP body may span
    // several. A line break in JSON text can only be whitespace between tokens (a string
    // holds none raw), so a space in its place is the same message on one line. A stdio
    // recording's lines are sent as they are (a CRLF line keeps its `\r`).
    return this.channel.transport === 'stdio' && this.plan.transport !== 'stdio'
      ? text.replace(/\r\n|\r|\n/g, ' ')
      : text;
  }

  private sentMessage(step: ToolReplayStep): void {
    const text = this.liveText(step);
    journalSent(this.journal, this.channel, 'message', text, JSON.parse(text) as unknown);
    this.countSent();
  }

  /** A message of the mock's own (an answer the recording has not, a fault): between steps. */
  private extra(message: unknown, text = JSON.stringify(message)): void {
    this.extras.push({ message, text });
    if (!this.midStep) this.flushExtras();
  }

  private flushExtras(): void {
    if (this.extras.length === 0 || this.closedFlag) return;
    this.flush();
    const pending = this.extras;
    this.extras = [];
    for (const { message, text } of pending) {
      if (this.closedFlag) return;
      journalSent(this.journal, this.channel, 'message', text, message);
      this.channel.write(text);
      this.countSent();
    }
  }

  private countSent(): void {
    this.sent++;
    const limit = this.scenario.faults.closeStreamAfter;
    if (limit !== undefined && this.sent >= limit) this.close();
  }

  private flush(): void {
    if (this.out.length === 0) return;
    const bytes = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out);
    this.out = [];
    this.outChunk = -1;
    if (this.closedFlag) return;
    if (this.channel.writeRaw) this.channel.writeRaw(bytes);
    else this.channel.write(bytes.toString('utf8').replace(/\n$/, ''));
  }

  private unknownNotification(): unknown {
    const word = Math.floor(this.random() * 0x100000).toString(36);
    return {
      jsonrpc: '2.0',
      method: `notifications/x-wirecheck/unknown-${word}`,
      params: { note: `unsolicited ${word}`, n: Math.floor(this.random() * 1000) },
    };
  }

  private wake(): void {
    // The step waiting for this pulse may now go on: not idle until it says so again.
    if (this.running && !this.closedFlag) this.idle = false;
    const { resolve } = this.pulse;
    this.pulse = newPulse();
    resolve();
  }

  private becomeIdle(): void {
    this.idle = true;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function newPulse(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
