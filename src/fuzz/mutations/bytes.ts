import fc from 'fast-check';

/**
 * Byte-level damage to an SSE stream. Positions are taken modulo the current length, so
 * any mutation applies to any stream and shrinks toward the start.
 */
export type ByteMutation =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'truncate'; at: number }
  | { op: 'duplicate'; at: number; length: number }
  | { op: 'delete'; at: number; length: number }
  | { op: 'insert'; at: number; bytes: readonly number[]; what: string }
  | { op: 'huge-line'; at: number; length: number; field: boolean; terminated: boolean };

/** Byte sequences that stress a decoder, with a name for the counterexample. */
export const HOSTILE_BYTES: readonly { what: string; bytes: readonly number[] }[] = [
  { what: 'CR', bytes: [13] },
  { what: 'LF', bytes: [10] },
  { what: 'CRLF', bytes: [13, 10] },
  { what: 'blank line', bytes: [10, 10] },
  { what: 'NUL', bytes: [0] },
  { what: 'invalid byte 0xFF', bytes: [0xff] },
  { what: 'lead byte without continuation', bytes: [0xc3] },
  { what: 'lone continuation byte', bytes: [0x80] },
  { what: 'cut 4-byte sequence', bytes: [0xf0, 0x9f] },
  { what: 'overlong encoding', bytes: [0xc0, 0xaf] },
  { what: 'encoded surrogate', bytes: [0xed, 0xa0, 0x80] },
  { what: 'BOM', bytes: [0xef, 0xbb, 0xbf] },
  { what: 'colon', bytes: [58] },
  { what: 'data field', bytes: [...'data: '].map((c) => c.charCodeAt(0)) },
];

/** Longest line a mutation inserts: huge for a line, small enough to keep 10,000 cases fast. */
export const HUGE_LINE_MAX = 40_000;

export const arbByteMutation: fc.Arbitrary<ByteMutation> = fc
  .oneof(
    fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat({ max: 7 }) }),
    fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({
      op: fc.constant('duplicate' as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 200 }),
    }),
    fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 50 }) }),
    fc
      .record({ at: fc.nat(), hostile: fc.constantFrom(...HOSTILE_BYTES) })
      .map(({ at, hostile }) => ({ op: 'insert' as const, at, bytes: hostile.bytes, what: hostile.what })),
    fc.record({
      op: fc.constant('huge-line' as const),
      at: fc.nat(),
      length: fc.integer({ min: 4096, max: HUGE_LINE_MAX }),
      field: fc.boolean(),
      terminated: fc.boolean(),
    }),
  )
  // fc.record builds null-prototype objects; plain ones print and compare like JSON.
  .map((m) => ({ ...m }));

function hugeLine(m: Extract<ByteMutation, { op: 'huge-line' }>): number[] {
  const prefix = m.field ? [...'data: '].map((c) => c.charCodeAt(0)) : [];
  const line = new Array<number>(m.length).fill(120 /* x */);
  return [...prefix, ...line, ...(m.terminated ? [10] : [])];
}

/** Apply one mutation; pure. */
export function mutateBytes(bytes: Uint8Array, m: ByteMutation): Uint8Array {
  const at = m.at % (bytes.length + 1);
  const before = bytes.subarray(0, at);
  const after = bytes.subarray(at);
  const join = (...parts: ArrayLike<number>[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const p of parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  };
  switch (m.op) {
    case 'flip': {
      if (bytes.length === 0) return bytes;
      const out = bytes.slice();
      const i = m.at % bytes.length;
      out[i] = (out[i] ?? 0) ^ (1 << m.bit);
      return out;
    }
    case 'truncate':
      return bytes.slice(0, at);
    case 'duplicate':
      return join(bytes.subarray(0, at + m.length), bytes.subarray(at));
    case 'delete':
      return join(before, bytes.subarray(at + m.length));
    case 'insert':
      return join(before, m.bytes, after);
    case 'huge-line':
      return join(before, hugeLine(m), after);
  }
}
