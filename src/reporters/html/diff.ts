/** One line of a line diff: kept in both, only in expected (`del`), only in actual (`add`). */
export interface DiffLine {
  readonly op: 'same' | 'del' | 'add';
  readonly text: string;
}

/** Above this many cells (lines x lines) the middle is shown as replaced whole, not aligned. */
const MAX_CELLS = 1_000_000;

/**
 * Line diff of `a` (expected) against `b` (actual): common head and tail kept, the middle
 * aligned by longest common subsequence. Pure and bounded: a middle too large to align is
 * shown as deleted then added.
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: 'same', text }));
  out.push(...alignMiddle(midA, midB));
  out.push(...a.slice(a.length - tail).map((text): DiffLine => ({ op: 'same', text })));
  return out;
}

function alignMiddle(a: readonly string[], b: readonly string[]): DiffLine[] {
  if (a.length * b.length > MAX_CELLS || a.length === 0 || b.length === 0) {
    return [
      ...a.map((text): DiffLine => ({ op: 'del', text })),
      ...b.map((text): DiffLine => ({ op: 'add', text })),
    ];
  }
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      out.push({ op: 'del', text: a[i++]! });
    } else {
      out.push({ op: 'add', text: b[j++]! });
    }
  }
  while (i < a.length) out.push({ op: 'del', text: a[i++]! });
  while (j < b.length) out.push({ op: 'add', text: b[j++]! });
  return out;
}

/** Where two one-line values differ: the common start and end, and the differing middles. */
export interface InlineDiff {
  readonly prefix: string;
  readonly expected: string;
  readonly actual: string;
  readonly suffix: string;
}

export function diffInline(expected: string, actual: string): InlineDiff {
  const max = Math.min(expected.length, actual.length);
  let p = 0;
  while (p < max && expected[p] === actual[p]) p++;
  // Never cut between the two halves of a surrogate pair.
  if (p > 0 && isHighSurrogate(expected.charCodeAt(p - 1))) p--;
  let s = 0;
  while (s < max - p && expected[expected.length - 1 - s] === actual[actual.length - 1 - s]) s++;
  if (s > 0 && isLowSurrogate(expected.charCodeAt(expected.length - s))) s--;
  return {
    prefix: expected.slice(0, p),
    expected: expected.slice(p, expected.length - s),
    actual: actual.slice(p, actual.length - s),
    suffix: expected.slice(expected.length - s),
  };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** JSON text pretty-printed (2 spaces) so that a diff aligns by field; other text as it is. */
export function prettyIfJson(text: string): string {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return text;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return text;
  }
}
