const FIRST_SLAB = 16 * 1024;
const LARGEST_SLAB = 256 * 1024;
/** Released slabs kept for reuse; a socket rarely holds more than two 256 KiB slabs at once. */
const MAX_SPARE = 4;

interface Slab {
  buf: Buffer;
  /** Writes taken from the slab and not yet released. */
  taken: number;
}

/** A write built by `BatchBuffer`. */
export interface TakenWrite {
  /** The bytes: a view into a slab, valid until `release`. */
  bytes: Buffer;
  /**
   * Says the bytes have been written (handed to the OS) or copied, so their memory may be
   * built on again. Further calls do nothing. A write never released is never reused.
   */
  release: () => void;
}

/**
 * Bytes of writes built one after the other in a few large slabs, each write handed out
 * as a view (`take`), so that building a write allocates nothing and writing it copies
 * nothing. A slab whose writes have all been released is built on again: a long stream
 * cycles through two or three slabs instead of allocating a slab (and faulting in fresh
 * pages, and growing the external memory the GC watches) every few writes. Slabs double
 * from 16 KiB to 256 KiB, so a short stream takes little memory.
 */
export class BatchBuffer {
  private slab: Slab = { buf: Buffer.allocUnsafeSlow(FIRST_SLAB), taken: 0 };
  private readonly spare: Slab[] = [];
  /** The current slab: write at `end`, after `reserve`. */
  buf: Buffer = this.slab.buf;
  /** Where the write being built begins. */
  private start = 0;
  /** Where its next byte goes. */
  end = 0;

  /**
   * The slab, with room for `bytes` more bytes at `end`. A full slab is left to the
   * writes taken from it and another one is built on, the part of the write already
   * built copied along.
   */
  reserve(bytes: number): Buffer {
    if (this.end + bytes <= this.buf.length) return this.buf;
    const built = this.end - this.start;
    // Twice what is built: a write larger than a slab is copied along O(1) times a byte.
    const size = Math.max(Math.min(LARGEST_SLAB, 2 * this.buf.length), 2 * built + bytes);
    let next = this.spare.pop();
    if (next === undefined || next.buf.length < size) next = { buf: Buffer.allocUnsafeSlow(size), taken: 0 };
    next.buf.set(this.buf.subarray(this.start, this.end), 0);
    if (this.slab.taken === 0 && this.spare.length < MAX_SPARE) this.spare.push(this.slab);
    this.slab = next;
    this.buf = next.buf;
    this.start = 0;
    this.end = built;
    return next.buf;
  }

  /** Appends the UTF-8 bytes of `text`. */
  text(text: string): void {
    // 3 bytes a UTF-16 code unit at most (a pair of units is 4 bytes).
    const buf = this.reserve(3 * text.length);
    this.end += buf.write(text, this.end, 'utf8');
  }

  /** The write built since the last `take` (the next one begins). */
  take(): TakenWrite {
    const slab = this.slab;
    const bytes = slab.buf.subarray(this.start, this.end);
    this.start = this.end;
    slab.taken++;
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.released(slab);
      },
    };
  }

  private released(slab: Slab): void {
    if (--slab.taken > 0) return;
    if (slab !== this.slab) {
      if (this.spare.length < MAX_SPARE) this.spare.push(slab);
    } else if (this.start === this.end) {
      // Nothing of the current slab is out any more and no write is half built.
      this.start = 0;
      this.end = 0;
    }
  }
}
