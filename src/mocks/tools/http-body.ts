import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type BodyBudget, BodyHold, declaredOverLimit } from '../../servers/http/body-budget.js';
import { utf8BytesPrefix } from '../limits.js';

/**
 * A POST body past the mock's limit: its first `text` (at most the journal's `bodyBytes`, cut at
 * a character boundary; nothing when it was declared over the limit while the budget was spent)
 * and its size, the one it declared or the bytes read when it passed the limit. The rest is never
 * held: the mock answers 413 and journals what it read.
 */
export class OversizeBody {
  constructor(
    readonly text: string,
    readonly bytes: number,
    readonly limit: number,
    /** `bytes` is the size the request declared (Content-Length), not the bytes read. */
    readonly declared: boolean,
  ) {}

  /** Why the mock refused it, as its 413 says. */
  get problem(): string {
    return this.declared
      ? `Payload Too Large: the body is ${this.bytes} bytes, over the limit of ${this.limit}`
      : `Payload Too Large: the body went past the limit of ${this.limit} bytes`;
  }
}

/**
 * A POST body refused because the bodies in flight would pass the mock's budget (BodyBudget):
 * what was read of it (nothing when its declared size was refused, the first `keep` bytes when
 * a chunked body passed the budget on the way) and its size so far. The rest is never read: the
 * mock answers 503 and journals it.
 */
export class BusyBody {
  constructor(
    readonly text: string,
    readonly bytes: number,
    /** Why, as the 503 says. */
    readonly problem: string,
  ) {}
}

/**
 * Bodies are kept as text (UTF-8, as fastify's own string parser decodes them), so the journal
 * records what arrived before anything validates it; one past `limit` bytes becomes an
 * OversizeBody holding its first `keep` bytes, so the refused message is journaled too (fastify's
 * own limit answers before a hook can see the body). Bodies in flight take from `budget` (what
 * they declare before any byte is read, a chunked one its bytes as they come), given back when
 * the answer ends; one that would pass it becomes a BusyBody.
 */
export function keepBodiesAsText(
  app: FastifyInstance,
  limit: number,
  keep: number,
  budget: BodyBudget,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Given back once the answer ended: 'finish' when it was written, 'close' when cut.
    const release = () => holds.get(request.raw)?.release();
    reply.raw.once('finish', release).once('close', release);
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    const hold = BodyHold.open(budget, request.headers, limit);
    if (typeof hold === 'string') {
      // Refused before a byte is read: the connection ends with the answer.
      const over = declaredOverLimit(request.headers, limit);
      // No retry makes a body declared over the limit fit: its 413 does not wait for the budget.
      if (over !== undefined) return void done(null, new OversizeBody('', over, limit, true));
      const declared = Number(request.headers['content-length']);
      done(null, new BusyBody('', Number.isFinite(declared) ? declared : 0, `Service Unavailable: ${hold}`));
      return;
    }
    holds.set(request.raw, hold);
    readBody(request, payload, limit, keep, hold, done);
  });
}

/** What each request holds of the budget, until its answer ends. */
const holds = new WeakMap<object, BodyHold>();

function readBody(
  request: FastifyRequest,
  payload: Readable,
  limit: number,
  keep: number,
  hold: BodyHold,
  done: (error: Error | null, body?: unknown) => void,
): void {
  const declared = declaredOverLimit(request.headers, limit);
  const declaredOver = declared !== undefined;
  // A body declared too long is read only as far as the journal keeps it.
  const stopAt = declaredOver ? Math.min(keep, limit) : limit;
  const chunks: Buffer[] = [];
  let bytes = 0;
  let settled = false;
  const settle = (error: Error | null, body?: unknown) => {
    if (settled) return;
    settled = true;
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    payload.removeListener('close', onClose);
    done(error, body);
  };
  const oversize = () => {
    const buffer = Buffer.concat(chunks);
    chunks.length = 0;
    // The rest is read and thrown away: the connection closes after the 413.
    payload.resume();
    settle(null, new OversizeBody(utf8BytesPrefix(buffer, keep), declared ?? bytes, limit, declaredOver));
  };
  function onData(chunk: Buffer | string): void {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const refusal = hold.received(b.length);
    if (refusal !== undefined) {
      const start = utf8BytesPrefix(Buffer.concat(chunks), keep);
      chunks.length = 0;
      // The rest is not read: the connection closes after the 503.
      payload.pause();
      settle(null, new BusyBody(start, bytes, `Service Unavailable: ${refusal}`));
      return;
    }
    bytes += b.length;
    chunks.push(b);
    if (declaredOver ? bytes >= stopAt : bytes > limit) oversize();
  }
  function onEnd(): void {
    if (declaredOver) oversize();
    else
      settle(
        null,
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      );
  }
  function onError(error: Error): void {
    settle(error);
  }
  function onClose(): void {
    settle(new Error('the client closed the request before its body ended'));
  }
  if (declaredOver && stopAt === 0) {
    oversize();
    return;
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.on('close', onClose);
}
