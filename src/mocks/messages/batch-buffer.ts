const FIRST_SLAB = 16 * 1024;
const LARGEST_SLAB = 256 * 1024;
/**
 * Bytes of released slabs kept for reuse by any stream. Many streams at once each hold a
 * few slabs (a socket under backpressure keeps its writes), and a fresh slab per stream
 * and per doubling cost more than building the stream: page faults of new memory and
 * garbage collections driven by the external memory (measured: 100 streams of 1,000
 * frames at once allocated 240 KiB of slabs a stream, and served at 0.6x raw node:http).
 */
const MAX_POOLED_BYTES = 16 * 1024 * 1024;

interface Slab {
  buf: Buffer;
  /** Writes taken from the slab and not yet released. */
  taken: number;
  /** A buffer still builds on the slab: it is free once that stops and `taken` is 0. */
  building: boolean;
}

/** Free slabs shared by every BatchBuffer of the process. */
const pool: Slab[] = [];
let pooledBytes = 0;

/** A free slab of at least `size` bytes: a pooled one when one fits, else a new one. */
function slabOf(size: number): Slab {
  for (let i = pool.length - 1; i >= 0; i--) {
    const slab = pool[i]!;
    if (slab.buf.length < size) continue;
    pool[i] = pool[pool.length - 1]!;
    pool.pop();
    pooledBytes -= slab.buf.length;
    slab.building = true;
    return slab;
  }
  return { buf: Buffer.allocUnsafeSlow(size), taken: 0, building: true };
}

/** A slab no write and no buffer uses any more. */
function recycle(slab: Slab): void {
  // A slab larger than the largest built by doubling holds one huge write: not worth keeping.
  if (slab.buf.length > LARGEST_SLAB || pooledBytes + slab.buf.length > MAX_POOLED_BYTES) return;
  pooledBytes += slab.buf.length;
  pool.push(slab);
}

/** A write built by `BatchBuffer`. */
export interface TakenWrite {
  /** The bytes: a view into a slab, valid until `release`. */
  bytes: Buffer;
  /**
   * Says the bytes have been written (handed to the OS) or copied, so their memory may be
   * built on again. Further calls do nothing. A write never released is never reused.
   */
  readonly release: () => void;
  /** The same as `release()`, without making a function. */
  reuse(): void;
}

/**
 * A taken write: one object, no closure. Writes stay alive until the socket has sent
 * them, and with many streams at once that is every write of every stream: each object
 * a write keeps alive is copied by every scavenge (measured: a closure and its context
 * per write made the young-generation collections 3x slower with 100 streams at once).
 */
class Taken implements TakenWrite {
  /** Frames the bytes hold (set by whoever counts them). */
  frames = 0;
  private done = false;

  constructor(
    readonly bytes: Buffer,
    private readonly owner: BatchBuffer,
    private readonly slab: Slab,
  ) {}

  get release(): () => void {
    return () => this.reuse();
  }

  reuse(): void {
    if (this.done) return;
    this.done = true;
    this.owner.released(this.slab);
  }
}

/**
 * Bytes of writes built one after the other in a few large slabs, each write handed out
 * as a view (`take`), so that building a write allocates nothing and writing it copies
 * nothing. A slab whose writes have all been released is built on again, and once its
 * buffer is done with it (`close`, or a move to another slab) it goes to a pool shared
 * by every buffer: a long stream cycles through two or three slabs, and one stream after
 * another (or many at once) take the slabs of those before, instead of allocating slabs
 * (and faulting in fresh pages, and growing the external memory the GC watches) every few
 * writes. Slabs double from 16 KiB to 256 KiB, so a short stream takes little memory.
 */
export class BatchBuffer {
  private slab: Slab = slabOf(FIRST_SLAB);
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
    const next = slabOf(size);
    next.buf.set(this.buf.subarray(this.start, this.end), 0);
    this.leave(this.slab);
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
  take(): TakenWrite & { frames: number } {
    const slab = this.slab;
    const bytes = slab.buf.subarray(this.start, this.end);
    this.start = this.end;
    slab.taken++;
    return new Taken(bytes, this, slab);
  }

  /**
   * Nothing more will be built: the slab goes back to the pool once the writes taken
   * from it are released. The buffer must not be used after this.
   */
  close(): void {
    if (this.slab.building) this.leave(this.slab);
  }

  private leave(slab: Slab): void {
    slab.building = false;
    if (slab.taken === 0) recycle(slab);
  }

  /** A write taken from `slab` has been released (called by the write, once). */
  released(slab: Slab): void {
    if (--slab.taken > 0) return;
    if (!slab.building) recycle(slab);
    else if (this.start === this.end) {
      // Nothing of the current slab is out any more and no write is half built.
      this.start = 0;
      this.end = 0;
    }
  }
}
