import type { RpcPeer } from './peer.js';

/** What a POST got back (SSE transport); stdio sends have no such outcome. */
export interface PostOutcome {
  /** HTTP status, undefined when no response came within the budget or the connection failed. */
  readonly status: number | undefined;
  readonly body: string;
  readonly contentType: string | undefined;
  /** Set when no response came: "no response within 2000 ms", "ECONNREFUSED ...". */
  readonly problem?: string;
}

/**
 * One session with the server under test: a stdio process or an SSE stream plus its POST
 * endpoint. Everything received goes to `peer`, which records it.
 */
export interface Channel {
  readonly transport: 'stdio' | 'sse';
  readonly peer: RpcPeer;
  /** Send one text (normally a JSON-RPC message, unchanged). */
  sendText(text: string): Promise<PostOutcome | undefined>;
  /** Why the session is over (process exited, stream ended), undefined while it lives. */
  gone(): string | undefined;
  close(): Promise<void>;
}
