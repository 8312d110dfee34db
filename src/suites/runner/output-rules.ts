import { CheckFailure } from '../../harness/check.js';
import { assembledOutputForms, OUTPUT_LIMIT_BYTES, utf8Prefix } from '../../protocol/bash/index.js';
import { abbreviate, mentions } from './expect.js';

/**
 * "a note that the 64 KB limit was exceeded", in the words a runner may choose: the limit
 * named in KB, KiB, K or kilobytes, or in bytes. The gaps are bounded: unbounded ones on either
 * side of the hyphen backtrack quadratically on a "64" followed by a long run of spaces.
 */
export const LIMIT_NOTE = /\b64\s{0,16}-?\s{0,16}(Ki?B|K\b|kilo-?bytes?|kibi-?bytes?)|65[,.\s]?536/i;

/**
 * Words that say output was cut ("[output truncated]", "... 1200 bytes omitted"), for the
 * places a note must be told from other text after the output (a timeout text saying its time
 * "limit" was "exceeded" is no note of a cut: runner.flood.output-kept). The musts after an
 * exact cut ask only for a note, in any words (hasNote): the spec gives the note's meaning, not
 * its words; whether it names the 64 KB limit (LIMIT_NOTE) is runner.truncation.note-names-limit.
 */
export const CUT_NOTE = /truncat|\bcut\b|omit|elided|clipped|dropped|too (long|large|much)/i;

/** Near either end of `text`, words that say the output was cut, or that name the limit. */
export function saysCut(text: string): boolean {
  return mentions(CUT_NOTE, text) || mentions(LIMIT_NOTE, text);
}

/** Something besides blanks (and replacement characters of a cut character) follows the kept output. */
export function hasNote(rest: string): boolean {
  return rest.replace(/[\s\uFFFD]/g, '') !== '';
}

/** What the note after a cut must say: that output was cut (the musts), or also which limit (the should). */
export type NoteRule = 'says-cut' | 'names-limit';

/**
 * Runner contract 4 and 5 for a command that printed `stdout` and `stderr` (valid UTF-8,
 * not blank): up to the limit the content is exactly an assembled text (assembledOutputForms:
 * a stdout ending in a line break may lend it to the separator line); over it, the
 * content is the longest prefix of the assembled text that fits in 65536 bytes without
 * splitting a character, followed by a note that says the output was cut (`note`: 'says-cut'),
 * or that names the 64 KB limit ('names-limit').
 *
 * Where the note happens to begin with the same whitespace as the output it replaces
 * (a line break), that whitespace cannot be told apart from kept output and is allowed;
 * any other character kept beyond the prefix is output over the limit (a runner that cuts
 * by characters rather than bytes keeps such characters).
 *
 * `splitCharacter`: when the limit falls inside a character, `tolerate` accepts the
 * replacement character(s) a runner that cuts at exactly 65536 bytes and then decodes
 * gets for the partial bytes (the spec says "cut to that length" and no more); `forbid`
 * asks for the cut before the character.
 */
export function expectAssembledOutput(
  content: string,
  stdout: string,
  stderr: string,
  what: string,
  splitCharacter: 'tolerate' | 'forbid' = 'forbid',
  note: NoteRule = 'says-cut',
): void {
  const [assembled, ...others] = assembledOutputForms(stdout, stderr);
  for (const other of others) {
    try {
      expectFormOfOutput(content, other, what, splitCharacter, note);
      return;
    } catch (e) {
      if (!(e instanceof CheckFailure)) throw e;
    }
  }
  expectFormOfOutput(content, assembled, what, splitCharacter, note);
}

/** expectAssembledOutput for one of the texts the output may be assembled into. */
function expectFormOfOutput(
  content: string,
  assembled: string,
  what: string,
  splitCharacter: 'tolerate' | 'forbid',
  note: NoteRule,
): void {
  const bytes = Buffer.from(assembled, 'utf8');
  if (bytes.length <= OUTPUT_LIMIT_BYTES) {
    if (content !== assembled) {
      throw new CheckFailure(
        `${what}: ${bytes.length} bytes of output (within the ${OUTPUT_LIMIT_BYTES}-byte limit) did not come back exactly; ${firstDifference(content, assembled)}`,
        describeText(assembled),
        describeText(content),
      );
    }
    return;
  }
  const prefix = Buffer.from(utf8Prefix(bytes, OUTPUT_LIMIT_BYTES)).toString('utf8');
  const prefixBytes = Buffer.byteLength(prefix);
  if (!content.startsWith(prefix)) {
    throw new CheckFailure(
      `${what}: ${bytes.length} bytes of output were not cut to their first ${prefixBytes} bytes (the most that fit in ${OUTPUT_LIMIT_BYTES} without splitting a character); ${firstDifference(content, assembled)}`,
      `the first ${prefixBytes} bytes of ${describeText(assembled)}, then a note`,
      describeText(content),
    );
  }
  let rest = content.slice(prefix.length);
  const continuation = assembled.slice(prefix.length);
  const straddles = prefixBytes < OUTPUT_LIMIT_BYTES;
  if (splitCharacter === 'tolerate' && straddles) {
    // The partial bytes of the straddling character, decoded: one replacement character, or one per byte.
    rest = rest.replace(/^\uFFFD{1,3}/, '');
  }
  let same = 0;
  while (same < rest.length && rest[same] === continuation[same]) same++;
  const kept = continuation.slice(0, same);
  if (kept.trim() !== '') {
    throw new CheckFailure(
      `${what}: ${Buffer.byteLength(kept)} more byte(s) of output were kept after the first ${prefixBytes}: more than ${OUTPUT_LIMIT_BYTES} bytes in all (cut by characters, not bytes?)`,
      `at most ${OUTPUT_LIMIT_BYTES} bytes of output, then the note`,
      `${prefixBytes + Buffer.byteLength(kept)} bytes of output, then ${abbreviate(rest.slice(same, same + 200))}`,
    );
  }
  if (splitCharacter === 'forbid' && rest.includes('\uFFFD')) {
    throw new CheckFailure(
      `${what}: a replacement character U+FFFD follows the kept output: a character was split at the cut`,
      'the cut on a character boundary',
      abbreviate(rest.slice(0, 200)),
    );
  }
  if (note === 'says-cut' && !hasNote(rest)) {
    throw new CheckFailure(
      `${what}: no note after the kept output (the spec: "a note that the 64 KB limit was exceeded" is appended)`,
      'a note, in any words, after the kept output',
      abbreviate(rest.slice(0, 400)),
    );
  }
  if (note === 'names-limit' && !mentions(LIMIT_NOTE, rest)) {
    throw new CheckFailure(
      `${what}: the note after the kept output does not name the 64 KB limit (the spec: "a note that the 64 KB limit was exceeded")`,
      `a note matching ${LIMIT_NOTE}`,
      abbreviate(rest.slice(0, 400)),
    );
  }
}

function describeText(s: string): string {
  const head = s.length > 120 ? `${abbreviate(s.slice(0, 60))}...${abbreviate(s.slice(-60))}` : abbreviate(s);
  return `${Buffer.byteLength(s)} bytes: ${head}`;
}

function firstDifference(actual: string, expected: string): string {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  const at = Buffer.byteLength(expected.slice(0, i));
  if (i === actual.length && i < expected.length) return `the content ends after ${at} bytes`;
  return `first difference at byte ${at}: ${abbreviate(actual.slice(i, i + 40))} instead of ${abbreviate(expected.slice(i, i + 40))}`;
}
