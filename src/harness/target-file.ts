import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { kindOf } from './bounded-read.js';

/** A file the target may have written: its text (at most the bytes asked for), or why there is none. */
export type TargetFile =
  | { readonly kind: 'text'; readonly text: string; readonly cut: boolean }
  | { readonly kind: 'absent' }
  | { readonly kind: 'not-a-file'; readonly what: string };

/**
 * Read a file in a directory the target writes to, as a hostile target may have left it: a
 * FIFO would block the reading thread for good and a link to /dev/zero never ends, so only a
 * regular file is read (opened without blocking, a final symbolic link not followed), and at
 * most `maxBytes` of it.
 */
export function readTargetFile(path: string, maxBytes: number): TargetFile {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'not-a-file', what: code === 'ELOOP' ? 'a symbolic link' : `not readable (${code})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not-a-file', what: kindOf(stat) };
    // One byte past the limit tells a file cut at it from one that ends there.
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    for (let n = 1; n > 0 && filled < buffer.length; filled += n) {
      n = readSync(fd, buffer, filled, buffer.length - filled, null);
    }
    const cut = filled > maxBytes;
    return { kind: 'text', text: buffer.toString('utf8', 0, Math.min(filled, maxBytes)), cut };
  } finally {
    closeSync(fd);
  }
}
