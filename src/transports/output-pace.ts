// Backpressure for a server writing to a peer that may not read: a stdio server (or relay)
// that reads on while its replies queue unread grows without bound (the reference stdio tool
// server reached 1.1 GB in 8 s under a client that wrote calls and read nothing).

/**
 * How much output a stdio server lets wait for its reader before it stops reading its input
 * (what the SSE server lets a session queue before dropping it: SESSION_QUEUE_LIMIT_BYTES).
 * A client that reads its replies never meets it; one that does not meets a full pipe, as with
 * any process that writes.
 */
export const OUTPUT_ALLOWANCE_BYTES = 16 * 1024 * 1024;

type OutputEvent = 'drain' | 'close' | 'error';

/** Where output goes: a Node Writable (process.stdout), or a stand-in that is never behind. */
export interface PacedOutput<Chunk> {
  write(chunk: Chunk): unknown;
  /** Bytes queued and not yet taken by the reader. */
  readonly writableLength?: number;
  once?(event: OutputEvent, listener: () => void): unknown;
  off?(event: OutputEvent, listener: () => void): unknown;
}

/**
 * Writes `chunk`. When the output is behind (its `write` returned false, with more than
 * `allowanceBytes` queued), returns a promise that settles once it has drained, or closed or
 * failed: the caller reads no more input until then.
 */
export function writeOrBehind<Chunk>(
  output: PacedOutput<Chunk>,
  chunk: Chunk,
  allowanceBytes = 0,
): Promise<void> | undefined {
  if (output.write(chunk) !== false || output.once === undefined) return undefined;
  if ((output.writableLength ?? 0) <= allowanceBytes) return undefined;
  return new Promise((resolve) => {
    const events: OutputEvent[] = ['drain', 'close', 'error'];
    const done = () => {
      for (const event of events) output.off?.(event, done);
      resolve();
    };
    for (const event of events) output.once?.(event, done);
  });
}
