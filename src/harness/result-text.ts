/**
 * Bounds on the text of a check's result. A failure message quotes what a target sent (a
 * stray reply, an answer body), and a target can send megabytes: the console, results.json,
 * JUnit and report.html would carry every character, once per check that quotes it.
 */
export const RESULT_TEXT_LIMITS = {
  /** Characters of a result's message (and of its shared cause). */
  message: 4096,
  /** Characters of a result's expected and actual. */
  shown: 16_384,
} as const;

/**
 * `text` when it fits in `max` characters; otherwise its first `max` characters and a note of
 * its length. The kept part is a copy: a slice would keep the whole text alive in the results.
 */
export function boundResultText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Not half of a surrogate pair at the cut.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  const head = Buffer.from(text.slice(0, end), 'utf16le').toString('utf16le');
  return `${head}... (${text.length} characters in all)`;
}
