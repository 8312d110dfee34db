import type { ServerResponse } from 'node:http';

/**
 * Bytes one session's event stream may hold queued for a client that does not read them
 * (what Node buffers in the response and its socket, beyond what the kernel took): 16 MiB.
 * A client reading at any speed never comes near it (replies leave as they are written);
 * four replies of the largest body a POST may carry (4 MiB) fit in it.
 */
export const SESSION_QUEUE_LIMIT_BYTES = 16 * 1024 * 1024;

/** Why a stream was dropped, for the log. */
export interface QueueOverflow {
  readonly queuedBytes: number;
  readonly limitBytes: number;
}

/**
 * Drops the stream of a reader that stopped reading: after each write, when more than
 * `limitBytes` wait in the response for the client, the response is destroyed. Its
 * 'close' then ends the session as a client that went away would (in-flight calls
 * aborted, memory released), and only this session: the others keep their own queues.
 * Returns whether the stream is still open.
 */
export function checkOutboundQueue(
  response: ServerResponse,
  limitBytes: number,
  onOverflow: (overflow: QueueOverflow) => void,
): boolean {
  if (response.destroyed) return false;
  const queuedBytes = response.writableLength;
  if (queuedBytes <= limitBytes) return true;
  onOverflow({ queuedBytes, limitBytes });
  response.destroy();
  return false;
}

/** The log line of a dropped stream. */
export function describeOverflow(session: string, { queuedBytes, limitBytes }: QueueOverflow): string {
  return (
    `session ${session}: the client stopped reading its event stream (${queuedBytes} bytes queued, ` +
    `over the limit of ${limitBytes}): the session is dropped and its in-flight calls aborted`
  );
}
