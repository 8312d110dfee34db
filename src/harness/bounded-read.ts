import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { Socket } from 'node:net';

/** What reading a file the user named gave: its text, or why there is none. */
export type BoundedRead =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'too-large'; readonly bytes: number }
  | { readonly kind: 'not-a-file'; readonly what: string }
  | { readonly kind: 'timed-out'; readonly afterMs: number };

export interface BoundedReadOptions {
  /** Bytes read at most: a larger file is refused, never read in part. */
  readonly maxBytes: number;
  /**
   * Read a pipe too (a FIFO, or `<(...)` of a shell), until its writer closes it or
   * `deadlineMs` passes. Without it only a regular file is read.
   */
  readonly pipeDeadlineMs?: number;
}

/**
 * Read a file named on the command line without trusting what it is: a FIFO nobody writes
 * would block a plain readFile for good, and a link to /dev/zero never ends. The file is
 * opened without blocking and looked at (fstat) before a byte is read: a regular file is read
 * whole if it is at most `maxBytes`, a pipe only when the caller allows it (within the
 * deadline and the size), anything else is refused. Errors of open itself (ENOENT, EACCES)
 * are thrown as they are.
 */
export async function readBounded(path: string, options: BoundedReadOptions): Promise<BoundedRead> {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (stat.isFIFO() && options.pipeDeadlineMs !== undefined) {
    return readPipe(fd, options.maxBytes, options.pipeDeadlineMs);
  }
  try {
    if (!stat.isFile()) return { kind: 'not-a-file', what: kindOf(stat) };
    if (stat.size > options.maxBytes) return { kind: 'too-large', bytes: stat.size };
    // One byte past the limit catches a file that grew after fstat.
    const buffer = Buffer.alloc(Math.min(stat.size, options.maxBytes) + 1);
    let filled = 0;
    for (let n = 1; n > 0 && filled < buffer.length; filled += n) {
      n = readSync(fd, buffer, filled, buffer.length - filled, null);
    }
    if (filled > options.maxBytes) return { kind: 'too-large', bytes: filled };
    if (filled > stat.size) return { kind: 'not-a-file', what: 'a file that grew while it was read' };
    return { kind: 'text', text: buffer.toString('utf8', 0, filled) };
  } finally {
    closeSync(fd);
  }
}

/** A pipe read through the event loop (a non-blocking fd), so a silent writer cannot hold the process. */
function readPipe(fd: number, maxBytes: number, deadlineMs: number): Promise<BoundedRead> {
  return new Promise((resolve, reject) => {
    // The socket owns the fd from here and closes it when destroyed.
    const socket = new Socket({ fd, readable: true, writable: false });
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = (result: BoundedRead | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => done({ kind: 'timed-out', afterMs: deadlineMs }), deadlineMs);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done({ kind: 'too-large', bytes });
      else chunks.push(chunk);
    });
    socket.on('end', () => done({ kind: 'text', text: Buffer.concat(chunks).toString('utf8') }));
    socket.on('error', (e) => done(e));
  });
}

/** What a path that is not a regular file is, for a message. */
export function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** A size for messages: bytes, KiB or MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}
