import { type HarnessBug, NotExercised, TargetGone } from '../../harness/check.js';
import { harnessBugOf } from '../../harness/programmer-error.js';
import { KEEP_ALIVE_MS } from '../../protocol/mcp/index.js';
import { keepAliveGap, keepAliveSettledAt } from './rules.js';
import type { SseChannel } from './sse-channel.js';

/** Slack on the 15 s interval: timers, scheduling, a busy CI machine. */
export const KEEP_ALIVE_TOLERANCE_MS = 5_000;
const OBSERVE_MARGIN_MS = 1_000;
/**
 * How long an idle stream is watched at most: longer than two gaps at the limit, so no watch
 * passes without a whole interval between two keep-alives in it, and a stream beating once, or
 * every 30 s at any phase, fails. A stream beating within the limit settles it at its second beat.
 */
export const KEEP_ALIVE_WATCH_MS = 2 * (KEEP_ALIVE_MS + KEEP_ALIVE_TOLERANCE_MS) + OBSERVE_MARGIN_MS;
export const KEEP_ALIVE_LIMIT = { intervalMs: KEEP_ALIVE_MS, toleranceMs: KEEP_ALIVE_TOLERANCE_MS } as const;

/** Past the window's end before it counts as over: a frame sent at the end may still be on its way. */
const WINDOW_END_MARGIN_MS = 50;

/** The part of a stream the keep-alive check judges, in ms on the stream's clock: from its endpoint event on. */
export function keepAliveWindow(channel: SseChannel): { fromMs: number; toMs: number } {
  const endpointFrame = channel.frames.find((f) => f.event === 'endpoint');
  const fromMs = Math.round((endpointFrame?.at ?? channel.openedAt) - channel.openedAt);
  return { fromMs, toMs: fromMs + KEEP_ALIVE_WATCH_MS };
}

/** When the window counts as over, on performance.now()'s clock. */
export function keepAliveWindowOverAt(channel: SseChannel): number {
  return channel.openedAt + keepAliveWindow(channel).toMs + WINDOW_END_MARGIN_MS;
}

/** The part of the window seen by `now` (performance.now()'s clock), in ms on the stream's clock. */
export function keepAliveSeen(
  channel: SseChannel,
  now = performance.now(),
): { fromMs: number; toMs: number } {
  const window = keepAliveWindow(channel);
  return { fromMs: window.fromMs, toMs: Math.min(window.toMs, Math.round(now - channel.openedAt)) };
}

/**
 * Whether the keep-alive verdict on the stream can no longer change: a keep-alive settled it
 * (keepAliveSettledAt), the gap since the last one is already over the limit, the window is
 * over, or the stream ended.
 */
export function keepAliveVerdictSettled(channel: SseChannel, now = performance.now()): boolean {
  const frames = channel.frameItems();
  return (
    channel.gone() !== undefined ||
    now >= keepAliveWindowOverAt(channel) ||
    keepAliveSettledAt(frames, keepAliveWindow(channel), KEEP_ALIVE_LIMIT) !== undefined ||
    keepAliveGap(frames, keepAliveSeen(channel, now), KEEP_ALIVE_LIMIT) !== undefined
  );
}

/**
 * The SSE stream the keep-alive check watches. It is opened with the suite, so that its watch
 * overlaps the other checks, and it holds one of the server's sessions: a server that bounds
 * them (503 or 429 past its cap) may refuse a session a check needs while it is open. The
 * suite then lets it go (`letGo`) and asks again, and the keep-alive check watches a new
 * stream at its turn when the verdict on the first was not yet settled: a capped server's
 * checks are exercised, and its keep-alives still judged over a whole window.
 */
export class IdleStream {
  private first: SseChannel | undefined;
  /** A bug of wirecheck met while opening the first stream: the keep-alive check meets it. */
  private bug: HarnessBug | undefined;
  private cutShort = false;
  private again: Promise<SseChannel> | undefined;

  /**
   * `open` opens and initializes a new stream under the label given; it throws what
   * openSession throws. `closeShared` closes the sessions that shared values keep open for
   * the checks that share them, but the main one (a check's own are closed when it ends).
   */
  constructor(
    private readonly open: (label: string) => Promise<SseChannel>,
    private readonly closeShared: () => Promise<void>,
  ) {}

  /**
   * Opens the first stream; one that cannot be opened leaves the keep-alive check nothing to
   * watch. A bug of wirecheck is kept for that check to throw, not taken for a refusal.
   */
  async start(): Promise<void> {
    try {
      this.first = await this.open('idle');
    } catch (e) {
      this.first = undefined;
      this.bug = harnessBugOf(e);
    }
  }

  /**
   * A session was refused for capacity: let the idle stream's session go. Whether it held one
   * and let it go now (false once let go, or when it held none). A stream let go is gone from
   * the close call on, so a refusal that comes while it closes is told it holds none.
   */
  async letGo(): Promise<boolean> {
    const held = this.first;
    if (held === undefined || held.gone() !== undefined) return false;
    this.cutShort = !keepAliveVerdictSettled(held);
    await held.close();
    return true;
  }

  /**
   * The stream whose keep-alives are judged: the first, or a new one, opened at the first
   * call, when the first was let go before its verdict settled. The keep-alive check calls it
   * after every check that opens sessions has ended, so the sessions kept for the checks that
   * share them are closed first: on a capped server they would leave the new stream no room.
   * NotExercised when there is none; TargetGone when the server stopped answering; a HarnessBug
   * when opening one met a bug of wirecheck.
   */
  async watched(): Promise<SseChannel> {
    if (this.bug !== undefined) throw this.bug;
    if (!this.cutShort) {
      if (this.first === undefined)
        throw new NotExercised('the idle stream could not be opened with the suite');
      return this.first;
    }
    this.again ??= this.closeShared().then(() => this.open('idle-again'));
    try {
      return await this.again;
    } catch (e) {
      if (e instanceof TargetGone) throw e;
      const bug = harnessBugOf(e);
      if (bug !== undefined) throw bug;
      throw new NotExercised(
        `the idle stream opened with the suite was let go before its keep-alives were judged, for a session the server refused for capacity, and a new one could not be opened: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}
