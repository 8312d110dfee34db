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
