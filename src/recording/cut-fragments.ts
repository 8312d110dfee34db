import { REDACTED } from './redact.js';

// A text cut short before it is scrubbed (a check quotes the first 240 characters of a stderr
// line, the harness keeps 4,096 of a message, a capture keeps the head and the tail of a
// stream) may end in the first part of a secret, or go on with its last part: scrubbing by
// whole value finds neither. Such a part sits at a cut mark, so that is where it is looked for.

/** Where a cut was made: `...` or `…`, after a closing quote or a line break and `[` (an elision note). */
const CUT_MARK = /"?\n?\[?(?:\.\.\.|…)\]?\n?/g;

/** Shorter parts are left: they would be ordinary text as often as a secret's. */
export const MIN_FRAGMENT = 4;

/**
 * `text` with every part of a secret that a cut left redacted: the first part of one that
 * ends where a cut mark begins, the last part of one that begins where a mark ends. Whole
 * secrets are scrubSecrets' to find; run it first.
 */
export function scrubCutFragments(text: string, secrets: readonly string[]): string {
  const marks = [...text.matchAll(CUT_MARK)].map((m) => [m.index, m.index + m[0].length] as const);
  if (marks.length === 0) return text;
  // One pass over the text per secret and direction, whatever the number of marks: a target
  // that fills its text with `...` costs no more than one that writes none.
  const befores = marks.map(([before]) => before);
  const afters = marks.map(([, after]) => after);
  const heads = new Int32Array(marks.length);
  const tails = new Int32Array(marks.length);
  for (const secret of secrets) {
    longestBorders(secret, text, befores, heads);
    longestBordersBackward(secret, text, afters, tails);
  }
  const spans: [start: number, end: number][] = [];
  marks.forEach(([before, after], i) => {
    if (heads[i]! >= MIN_FRAGMENT) spans.push([before - heads[i]!, before]);
    if (tails[i]! >= MIN_FRAGMENT) spans.push([after, after + tails[i]!]);
  });
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of spans.sort((a, b) => a[0] - b[0])) {
    if (end <= at) continue;
    out += text.slice(at, Math.max(at, start)) + REDACTED;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * For each of the ascending positions `at`, raises `into[i]` to the length of the longest
 * proper start of `secret` that `text` ends with just before `at[i]` (Knuth-Morris-Pratt:
 * linear in the two lengths, whatever they hold).
 */
function longestBorders(secret: string, text: string, at: readonly number[], into: Int32Array): void {
  const fail = failureTable(secret, (i) => secret[i]);
  let k = 0;
  let next = 0;
  for (let i = 0; next < at.length; i++) {
    for (; next < at.length && at[next] === i; next++) into[next] = Math.max(into[next]!, proper(k, fail));
    if (i === text.length) break;
    while (k > 0 && (k === secret.length || text[i] !== secret[k])) k = fail[k - 1]!;
    if (text[i] === secret[k]) k++;
  }
}

/**
 * For each of the ascending positions `at`, raises `into[i]` to the length of the longest
 * proper end of `secret` that `text` begins with at `at[i]`: longestBorders read backwards.
 */
function longestBordersBackward(secret: string, text: string, at: readonly number[], into: Int32Array): void {
  const last = secret.length - 1;
  const fail = failureTable(secret, (i) => secret[last - i]);
  let k = 0;
  let next = at.length - 1;
  for (let i = text.length; next >= 0; i--) {
    for (; next >= 0 && at[next] === i; next--) into[next] = Math.max(into[next]!, proper(k, fail));
    if (i === 0) break;
    const c = text[i - 1];
    while (k > 0 && (k === secret.length || c !== secret[last - k])) k = fail[k - 1]!;
    if (c === secret[last - k]) k++;
  }
}

/** A whole secret is scrubSecrets' to find; the part wanted is the longest shorter one. */
function proper(k: number, fail: Int32Array): number {
  return k === fail.length && k > 0 ? fail[k - 1]! : k;
}

/** Knuth-Morris-Pratt's failure table of the pattern whose i-th character is `charAt(i)`. */
function failureTable(pattern: string, charAt: (i: number) => string | undefined): Int32Array {
  const fail = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && charAt(i) !== charAt(k)) k = fail[k - 1]!;
    if (charAt(i) === charAt(k)) k++;
    fail[i] = k;
  }
  return fail;
}
