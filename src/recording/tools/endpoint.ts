import { locateFrames } from '../../fixtures/frames.js';
import { TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';

/** Bytes held while waiting for the first frame; past this the stream is passed on as it is. */
export const HOLD_LIMIT = 64 * 1024;
const EMPTY = new Uint8Array(0);

export interface EndpointRewriter {
  /** Bytes to pass on for this chunk (empty while the first frame is incomplete). */
  feed(chunk: Uint8Array): Uint8Array;
  /** The stream ended: whatever is still held. */
  flush(): Uint8Array;
}

/**
 * Rewrites the data of the stream's first frame when it is the `endpoint` event, as `map`
 * says, and passes every other byte on unchanged. Bytes are held only until that first
 * frame is complete (it normally arrives in the first chunk); after it, chunks pass
 * through as they come, so their boundaries stay the server's. Pure.
 */
export function rewriteFirstEndpoint(map: (data: string) => string): EndpointRewriter {
  let held: Buffer[] = [];
  let done = false;
  const release = (): Uint8Array => {
    done = true;
    const out = Buffer.concat(held);
    held = [];
    return out;
  };
  return {
    feed(chunk) {
      if (done) return chunk;
      held.push(Buffer.from(chunk));
      const body = Buffer.concat(held);
      const first = locateFrames(body).frames[0];
      if (first === undefined) return body.length > HOLD_LIMIT ? release() : EMPTY;
      held = [];
      done = true;
      if (first.event !== TOOL_SSE_EVENTS.endpoint) return body;
      const mapped = map(first.data);
      if (mapped === first.data) return body;
      const frame = body.subarray(first.start, first.end).toString('utf8');
      const at = frame.indexOf(first.data);
      if (at < 0) return body;
      const rewritten = frame.slice(0, at) + mapped + frame.slice(at + first.data.length);
      return Buffer.concat([body.subarray(0, first.start), Buffer.from(rewritten), body.subarray(first.end)]);
    },
    flush() {
      return done ? EMPTY : release();
    },
  };
}
