/**
 * Tool calls the suite left unanswered when it closed their sessions. A server that serves
 * one call at a time (its process held by each) still works through them afterwards, and
 * answers no new stream meanwhile: each is reckoned to take as long as the slowest call
 * answered so far, and at least a reply budget, one after the other, so a GET that waits
 * behind them is not taken for a server gone silent.
 */
export class CallBacklog {
  private busyUntil = 0;
  private perCallMs: number;
  constructor(
    replyMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perCallMs = replyMs;
  }

  /** A call was answered `ms` after it was sent. */
  observe(ms: number): void {
    if (ms > this.perCallMs) this.perCallMs = ms;
  }

  /** A session closed with `calls` tool calls unanswered. */
  left(calls: number): void {
    if (calls <= 0) return;
    this.busyUntil = Math.max(this.busyUntil, this.now()) + calls * this.perCallMs;
  }

  /** Ms the server may still be busy: with what closed sessions left, and `openCalls` calls unanswered in open ones. */
  owedMs(openCalls: number): number {
    return Math.max(0, this.busyUntil - this.now()) + Math.max(0, openCalls) * this.perCallMs;
  }
}
