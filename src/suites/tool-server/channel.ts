import type { WireDiagnosis } from './diagnosis.js';
import type { RpcPeer } from './peer.js';

/** What a POST got back (SSE and Streamable HTTP transports); stdio sends have no such outcome. */
export interface PostOutcome {
  /** HTTP status, undefined when no response came within the budget or the connection failed. */
  readonly status: number | undefined;
  readonly body: string;
  readonly contentType: string | undefined;
  /** Set when no (whole) response came: "no response within 2000 ms", "ECONNREFUSED ...", a body cut off at its limit. */
  readonly problem?: string;
  /** No response at all within the budget (a server busy in a slow call looks so), not a failed connection. */
  readonly timedOut?: boolean;
  /** The origin this POST went to without the target's `--header`s (an endpoint announced on another origin). */
  readonly headersWithheldFrom?: string;
}

/**
 * One session with the server under test: a stdio process or an SSE stream plus its POST
 * endpoint. Everything received goes to `peer`, which records it. Reading is bounded: a
 * line or frame past the reader's limits (16 MiB, nesting 512) ends the session, and a
 * flood costs counts, not memory.
 */
export interface Channel {
  readonly transport: 'stdio' | 'sse' | 'http';
  readonly peer: RpcPeer;
  /**
   * The protocol version the harness offers in `initialize` on this session, when it is not
   * 2024-11-05 (Streamable HTTP: see offered-version.ts).
   */
  readonly protocolVersion?: string;
  /**
   * Send one text (normally a JSON-RPC message, unchanged). `answerWithinMs`: how long the
   * answer to a request in it may take. Over Streamable HTTP the POST's response carries that
   * answer (a JSON body is written once the answer is ready), so its wait is the longer of this
   * and the POST budget; over SSE the POST is only accepted, and stdio has no response.
   */
  sendText(text: string, answerWithinMs?: number): Promise<PostOutcome | undefined>;
  /**
   * Why the session is over, undefined while it lives: the process exited, the stream
   * ended, or the target sent a line or frame past a limit and the harness stopped reading
   * (the sentence then names the limit, its value and what arrived).
   */
  gone(): string | undefined;
  /**
   * What the target sent on this session, summed up: totals, first bytes, and what was not
   * JSON, not JSON-RPC, too deep, over a limit or the harness's own message echoed back.
   * `summary` is one sentence for a "no reply" failure; `cannotSpeakProtocol(diagnosis)`
   * (diagnosis.ts) says when the target has shown it cannot speak the protocol at all.
   */
  diagnosis(): WireDiagnosis;
  close(): Promise<void>;
}
