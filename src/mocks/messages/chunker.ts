import { type Random, randomInt } from './random.js';

/**
 * How a byte stream is cut into writes. A size (fixed, or drawn per write from
 * [minBytes, maxBytes]) and/or forced cut points: between the CR and LF of a CRLF, and
 * after the first byte of a multi-byte UTF-8 character.
 */
export interface ChunkPolicy {
  size?: { fixed: number } | { minBytes: number; maxBytes: number; random: Random };
  splitCrLf?: boolean;
  splitUtf8?: boolean;
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Cuts a byte stream into chunks by a policy. Pure: fed bytes, returns the chunks that
 * are complete; `flush` returns what is pending (before a pause, a disconnect or the end,
 * so no byte waits behind a timer).
 */
export class ByteChunker {
  private pending: Uint8Array = new Uint8Array(0);
  private nextLength: number;

  constructor(private readonly policy: ChunkPolicy) {
    this.nextLength = this.drawLength();
  }

  push(bytes: Uint8Array): Uint8Array[] {
    const buf = this.pending.length === 0 ? bytes : concat(this.pending, bytes);
    const out: Uint8Array[] = [];
    let pos = 0;
    for (;;) {
      const limit = this.policy.size ? pos + this.nextLength : buf.length;
      const forced = this.forcedCut(buf, pos + 1, Math.min(limit, buf.length));
      let cut: number;
      if (forced !== -1) cut = forced;
      else if (limit <= buf.length && limit > pos) cut = limit;
      else break;
      out.push(buf.subarray(pos, cut));
      pos = cut;
      this.nextLength = this.drawLength();
    }
    this.pending = buf.subarray(pos);
    return out;
  }

  /** Everything pending, still cut at the forced points. */
  flush(): Uint8Array[] {
    const buf = this.pending;
    const out: Uint8Array[] = [];
    let pos = 0;
    while (pos < buf.length) {
      const forced = this.forcedCut(buf, pos + 1, buf.length);
      const cut = forced === -1 ? buf.length : forced;
      out.push(buf.subarray(pos, cut));
      pos = cut;
    }
    this.pending = new Uint8Array(0);
    if (out.length > 0) this.nextLength = this.drawLength();
    return out;
  }

  private drawLength(): number {
    const size = this.policy.size;
    if (!size) return Number.POSITIVE_INFINITY;
    if ('fixed' in size) return size.fixed;
    return randomInt(size.random, size.minBytes, Math.max(size.minBytes, size.maxBytes));
  }

  /** The first p in [from, to) where the policy forces a cut before byte p; -1 if none. */
  private forcedCut(buf: Uint8Array, from: number, to: number): number {
    const { splitCrLf, splitUtf8 } = this.policy;
    if (!splitCrLf && !splitUtf8) return -1;
    for (let p = Math.max(1, from); p < to; p++) {
      const before = buf[p - 1]!;
      const at = buf[p]!;
      if (splitCrLf && before === CR && at === LF) return p;
      if (splitUtf8 && before >= 0xc0 && at >= 0x80 && at < 0xc0) return p;
    }
    return -1;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
