import type { IncomingMessage } from 'node:http';
import { HeldBytes } from '../protocol/held-line.js';

// Bodies of HTTP answers read by the client transports: never more than a limit is held.

/** Bytes of a response body read for an error message before the rest is dropped with the connection. */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;

/** A response body read up to a limit: what came, and whether it went on past the limit. */
export interface BoundedBody {
  /** The bytes read, at most the limit. */
  readonly bytes: Buffer;
  /** Bytes that arrived in all (past the limit: the count when reading stopped). */
  readonly total: number;
  /** The body went on past the limit: the response was destroyed there. */
  readonly over: boolean;
  /** The body broke off (the bytes are those before). */
  readonly error?: Error;
}

/**
 * Read a response body whole, up to `limit` bytes: past it the response is destroyed (its
 * connection with it) and no more is read. Never rejects: a broken body is `error`.
 */
export async function readBounded(response: IncomingMessage, limit: number): Promise<BoundedBody> {
  const held = new HeldBytes();
  let total = 0;
  try {
    for await (const chunk of response) {
      total += (chunk as Buffer).length;
      if (total > limit) {
        response.destroy();
        return { bytes: held.bytes(), total, over: true };
      }
      held.add(chunk as Buffer, false);
    }
  } catch (e) {
    return { bytes: held.bytes(), total, over: false, error: e as Error };
  }
  return { bytes: held.bytes(), total, over: false };
}

/**
 * The first `max` characters of a body, for error messages. The rest is drained, up to
 * DRAIN_LIMIT_BYTES in all: a body that goes on past that is cut off with its connection.
 */
export async function readBody(response: IncomingMessage, max = 500): Promise<string> {
  const body = await readBounded(response, DRAIN_LIMIT_BYTES);
  const text = body.bytes.toString('utf8');
  if (body.over) {
    return `${text.slice(0, max)}... (cut off after ${body.total} bytes: the body went on past the ${DRAIN_LIMIT_BYTES}-byte limit of a body read for a message)`;
  }
  if (body.error !== undefined) return `${text.slice(0, max)}(body unreadable: ${body.error.message})`;
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
