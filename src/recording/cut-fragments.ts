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
  const spans: [start: number, end: number][] = [];
  for (const mark of text.matchAll(CUT_MARK)) {
    const before = mark.index;
    const after = before + mark[0].length;
    let head = 0;
    let tail = 0;
    for (const s of secrets) {
      head = Math.max(head, endOverlap(text, before, s));
      tail = Math.max(tail, startOverlap(text, after, s));
    }
    if (head >= MIN_FRAGMENT) spans.push([before - head, before]);
    if (tail >= MIN_FRAGMENT) spans.push([after, after + tail]);
  }
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

/** The length of the longest proper start of `secret` that `text` ends with just before `at`. */
function endOverlap(text: string, at: number, secret: string): number {
  const from = Math.max(0, at - secret.length + 1);
  return longestBorder(secret, text.slice(from, at));
}

/** The length of the longest proper end of `secret` that `text` begins with at `at`. */
function startOverlap(text: string, at: number, secret: string): number {
  const upto = Math.min(text.length, at + secret.length - 1);
  return longestBorder(reversed(secret), reversed(text.slice(at, upto)));
}

function reversed(s: string): string {
  return s.split('').reverse().join('');
}

/**
 * The length of the longest start of `pattern` that `text` ends with (Knuth-Morris-Pratt):
 * linear in the two lengths, whatever they hold.
 */
function longestBorder(pattern: string, text: string): number {
  const fail = new Int32Array(pattern.length);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = fail[k - 1]!;
    if (pattern[i] === pattern[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    while (k > 0 && (k === pattern.length || text[i] !== pattern[k])) k = fail[k - 1]!;
    if (text[i] === pattern[k]) k++;
  }
  return k;
}
