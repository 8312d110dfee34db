// A line held until its end, for a reader of a target's stream: as bytes (HeldBytes) or as
// decoded text (HeldText). Small chunks are gathered into parts of HELD_PART_SIZE: a target that
// writes its line a byte at a time costs the line's size, not an object per byte.

/** Small chunks are joined into parts of this many bytes or characters. */
export const HELD_PART_SIZE = 4096;

/**
 * The bytes of a line (or a body) held until its end, for a reader of a target's stream. A
 * small chunk after the first is copied into a part of HELD_PART_SIZE (the stage) rather than
 * held as an array of its own: a target that writes a byte at a time costs the bytes (at most
 * twice), not an object per byte (about 700 bytes of heap each). A large chunk, or the first,
 * is held as it is unless `copy` says the caller will reuse its buffer: a line that arrives
 * whole is never copied. The stage outlives `clear()`, so lines cut across chunks cost no new
 * array each (a fresh backing store per line made the stdio framing twice as slow at 60-byte
 * chunks): what `head()` returns is valid until the next `add()`.
 */
export class HeldBytes {
  private parts: Uint8Array[] = [];
  /** The part small chunks are copied into, and how much of it is used. */
  private stage: Uint8Array | undefined;
  private staged = 0;
  /** Bytes held. */
  length = 0;

  /** Arrays held apart: what a flood of small chunks would multiply. */
  get partCount(): number {
    return this.parts.length + (this.staged > 0 ? 1 : 0);
  }

  /** Hold `bytes`; `copy`: the caller reuses its buffer once this returns. */
  add(bytes: Uint8Array, copy: boolean): void {
    if (bytes.length === 0) return;
    const first = this.length === 0;
    this.length += bytes.length;
    if (bytes.length >= HELD_PART_SIZE || (first && !copy)) {
      this.seal();
      // new Uint8Array copies; Buffer#slice would be a view.
      this.parts.push(copy ? new Uint8Array(bytes) : bytes);
      return;
    }
    if (this.staged + bytes.length > HELD_PART_SIZE) this.seal();
    this.stage ??= new Uint8Array(HELD_PART_SIZE);
    this.stage.set(bytes, this.staged);
    this.staged += bytes.length;
  }

  /** The first `count` bytes held (all by default) as one array; a view of the only part when there is one. */
  head(count = this.length): Uint8Array {
    const n = Math.min(count, this.length);
    if (this.parts.length === 0)
      return this.stage === undefined ? new Uint8Array(0) : this.stage.subarray(0, n);
    this.seal();
    const first = this.parts[0] as Uint8Array;
    // The whole of the only part, as it is: a line that arrived whole costs no new view.
    if (first.length === n) return first;
    if (first.length > n) return first.subarray(0, n);
    const out = new Uint8Array(n);
    let at = 0;
    for (const part of this.parts) {
      if (at >= n) break;
      const piece = part.subarray(0, n - at);
      out.set(piece, at);
      at += piece.length;
    }
    return out;
  }

  /** Forget everything held (the stage is kept, empty, for the next line). */
  clear(): void {
    if (this.parts.length > 0) this.parts = [];
    this.staged = 0;
    this.length = 0;
  }

  /** Everything held as a Buffer (a view of `head()`, valid as long). */
  bytes(): Buffer {
    const all = this.head();
    return Buffer.from(all.buffer, all.byteOffset, all.byteLength);
  }

  /** Everything held, decoded as UTF-8 (a character cut at the end becomes U+FFFD). */
  text(): string {
    return this.bytes().toString('utf8');
  }

  /** The stage's bytes become a part; the next small chunk starts a new stage. */
  private seal(): void {
    if (this.staged === 0) return;
    this.parts.push((this.stage as Uint8Array).subarray(0, this.staged));
    this.stage = undefined;
    this.staged = 0;
  }
}

/**
 * The text of a line held until its end: fragments of at least HELD_PART_SIZE characters are
 * held as they are, smaller ones joined once they add up to that (each character is copied
 * once more at most). A fragment of a character or two costs about 60 bytes of heap held
 * apart (the array slot, the string), so at most HELD_PART_SIZE fragments are ever held apart.
 */
export class HeldText {
  private parts: string[] = [];
  private small: string[] = [];
  private smallLength = 0;
  /** Characters held. */
  length = 0;

  /** Strings held apart: what a flood of small fragments would multiply. */
  get partCount(): number {
    return this.parts.length + this.small.length;
  }

  add(text: string): void {
    if (text === '') return;
    this.length += text.length;
    if (text.length >= HELD_PART_SIZE) {
      this.seal();
      this.parts.push(text);
      return;
    }
    this.small.push(text);
    this.smallLength += text.length;
    if (this.smallLength >= HELD_PART_SIZE) this.seal();
  }

  /** The first `count` characters held. */
  head(count: number): string {
    this.seal();
    let head = '';
    for (const part of this.parts) {
      if (head.length >= count) break;
      head += part.slice(0, count - head.length);
    }
    return head;
  }

  /** Everything held, as one string; then nothing is. */
  take(): string {
    this.seal();
    const all = this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join('');
    this.clear();
    return all;
  }

  clear(): void {
    this.parts = [];
    this.small = [];
    this.smallLength = 0;
    this.length = 0;
  }

  private seal(): void {
    if (this.small.length === 0) return;
    this.parts.push(this.small.length === 1 ? (this.small[0] as string) : this.small.join(''));
    this.small = [];
    this.smallLength = 0;
  }
}
