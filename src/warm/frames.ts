/**
 * The frames between a warm relay (bin/warm-relay.pl) and the long-running server behind it:
 * one type byte, a 32-bit big-endian payload length, the payload. Pure: the server feeds the
 * bytes of its socket in and gets whole frames out.
 */

/** Relay -> server: the environment (once, first), stdin bytes, the end of stdin. */
export type RelayFrame =
  | { readonly type: 'env'; readonly env: Readonly<Record<string, string>> }
  | { readonly type: 'stdin'; readonly bytes: Uint8Array }
  | { readonly type: 'stdin-end' };

/** The relay reads 64 KiB of stdin at a time: a longer stdin frame is not from it. */
export const MAX_STDIN_FRAME_BYTES = 64 * 1024;
/** Linux caps an environment far below this (ARG_MAX, 2 MiB by default with the arguments). */
export const MAX_ENV_FRAME_BYTES = 4 * 1024 * 1024;

const HEADER_BYTES = 5;

/** Bytes from the relay that are not its frames; the connection is dropped. */
export class RelayFrameError extends Error {
  override readonly name = 'RelayFrameError';
}

/**
 * Cuts the relay's bytes into frames. Holds at most one unfinished frame (bounded by the
 * limits above), so a peer that is not a relay costs at most that much memory.
 */
export class RelayFrameReader {
  #pending: Buffer = Buffer.alloc(0);
  #sawEnv = false;
  #ended = false;

  push(chunk: Uint8Array): RelayFrame[] {
    this.#pending = this.#pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
    const frames: RelayFrame[] = [];
    while (this.#pending.length >= HEADER_BYTES) {
      const type = String.fromCharCode(this.#pending[0]!);
      const length = this.#pending.readUInt32BE(1);
      this.#expect(type, length);
      if (this.#pending.length < HEADER_BYTES + length) break;
      const payload = this.#pending.subarray(HEADER_BYTES, HEADER_BYTES + length);
      this.#pending = this.#pending.subarray(HEADER_BYTES + length);
      frames.push(this.#frame(type, payload));
    }
    return frames;
  }

  /** Judged from the header alone, before any of the payload is held. */
  #expect(type: string, length: number): void {
    if (!['E', 'I', 'Z'].includes(type)) {
      throw new RelayFrameError(`unknown frame type ${JSON.stringify(type)}; expected E, I or Z`);
    }
    if (!this.#sawEnv && type !== 'E') {
      throw new RelayFrameError(`expected the environment frame (E) first, got ${JSON.stringify(type)}`);
    }
    if (this.#sawEnv && type === 'E') throw new RelayFrameError('a second environment frame');
    if (this.#ended)
      throw new RelayFrameError(`a frame of type ${JSON.stringify(type)} after the end of stdin`);
    const limit = type === 'E' ? MAX_ENV_FRAME_BYTES : type === 'I' ? MAX_STDIN_FRAME_BYTES : 0;
    if (length > limit) {
      throw new RelayFrameError(
        `a frame of type ${JSON.stringify(type)} of ${length} bytes; at most ${limit}`,
      );
    }
  }

  #frame(type: string, payload: Buffer): RelayFrame {
    if (type === 'E') {
      this.#sawEnv = true;
      return { type: 'env', env: parseEnvironment(payload) };
    }
    if (type === 'I') return { type: 'stdin', bytes: Buffer.from(payload) };
    this.#ended = true;
    return { type: 'stdin-end' };
  }
}

/** `NAME=value` entries separated by NUL; an entry without `=` is not a variable and is left out. */
export function parseEnvironment(payload: Uint8Array): Record<string, string> {
  const env: Record<string, string> = {};
  if (payload.length === 0) return env;
  for (const entry of Buffer.from(payload).toString('utf8').split('\0')) {
    const equals = entry.indexOf('=');
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return env;
}

/** The five bytes before a payload of `length` bytes: the type, then the length (32-bit big-endian). */
export function frameHeader(type: 'E' | 'I' | 'Z' | 'O' | 'R' | 'X', length: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(length, 1);
  return header;
}

/** Server -> relay: bytes for its stdout (O) or stderr (R), or its exit status (X), as one buffer. */
export function serverFrame(type: 'O' | 'R', bytes: Uint8Array | string): Buffer;
export function serverFrame(type: 'X', status: number): Buffer;
export function serverFrame(type: 'O' | 'R' | 'X', body: Uint8Array | string | number): Buffer {
  const payload = Buffer.from(typeof body === 'number' ? String(body) : body);
  return Buffer.concat([frameHeader(type, payload.length), payload]);
}

/** The relay frames a test (or another relay) sends, encoded. */
export function relayFrame(type: 'E' | 'I' | 'Z', payload: Uint8Array | string = ''): Buffer {
  const bytes = Buffer.from(payload);
  return Buffer.concat([frameHeader(type, bytes.length), bytes]);
}
