import { seededRandom } from '../../mocks/messages/random.js';

/**
 * Where to cut one piece of a response's bytes into separate network writes: offsets
 * inside `chunk` (0 < offset < chunk.length). Stateful policies keep their own state.
 */
export type ReadCuts = (chunk: Uint8Array) => number[];

/** How a case's response reaches the client, read by read. */
export interface ReadCutPlan {
  /** Cut inside every multi-byte UTF-8 character (after its first byte) and between every CR and LF. */
  readonly insideCharacters?: boolean;
  /** Also cut at random offsets, on average every `meanGapBytes` bytes, drawn from `seed`. */
  readonly random?: { readonly seed: number; readonly meanGapBytes: number };
}

const CR = 0x0d;
const LF = 0x0a;

/** The cuts a plan asks for; pure apart from the random stream it owns. */
export function readCutsOf(plan: ReadCutPlan): ReadCuts {
  const random = plan.random && seededRandom(plan.random.seed);
  const rate = plan.random ? 1 / Math.max(1, plan.random.meanGapBytes) : 0;
  return (chunk) => {
    const cuts: number[] = [];
    for (let p = 1; p < chunk.length; p++) {
      const before = chunk[p - 1]!;
      const at = chunk[p]!;
      const inside =
        plan.insideCharacters === true &&
        ((before >= 0xc0 && at >= 0x80 && at < 0xc0) || (before === CR && at === LF));
      if (inside || (random !== undefined && random() < rate)) cuts.push(p);
    }
    return cuts;
  };
}

/** `chunk` cut at `cuts` (sorted, inside). */
export function cutBytes(chunk: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(chunk.subarray(from, cut));
    from = cut;
  }
  pieces.push(chunk.subarray(from));
  return pieces;
}
