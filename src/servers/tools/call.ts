import type { ToolContext, ToolServerStats, ToolSessionInfo } from './tool.js';

/**
 * One tool call in progress: the handler's context. The AbortController is made only
 * when the handler reads `signal`, so a synchronous tool costs no controller.
 */
export class ToolCall implements ToolContext {
  private controller: AbortController | undefined;
  private abortReason: unknown;
  /** Set once the call was cancelled or its session closed: its reply is never sent. */
  cancelled = false;

  constructor(
    readonly session: ToolSessionInfo,
    readonly server: ToolServerStats,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: string): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abortReason = new CallAbortedError(reason);
    this.controller?.abort(this.abortReason);
  }
}

/** The reason a cancelled call's signal carries. */
export class CallAbortedError extends Error {
  override readonly name = 'CallAbortedError';
}
