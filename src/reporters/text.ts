import { type SuiteResult, type Summary, withSkipKinds } from '../harness/results.js';
import { codeUnitEscape } from './untrusted-text.js';

/**
 * Characters XML 1.0 cannot carry at all, not even as character references: C0 controls
 * other than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF. Targets put arbitrary
 * bytes into messages, so these are shown as `\uXXXX` text instead of breaking the file.
 */
const INVALID_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function withoutInvalidXmlChars(text: string): string {
  return text.replace(INVALID_XML_CHAR, codeUnitEscape);
}

// Where the console reporters have always found it.
export { withoutTerminalControls } from './untrusted-text.js';

/** "12 ms" below a second, "1.25 s" above. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function totalSummary(results: readonly Pick<SuiteResult, 'summary'>[]): Summary {
  const total = { passed: 0, failed: 0, warned: 0, skipped: 0 };
  let notExercised = 0;
  let notRun = 0;
  for (const { summary } of results) {
    total.passed += summary.passed;
    total.failed += summary.failed;
    total.warned += summary.warned;
    total.skipped += summary.skipped;
    notExercised += summary.notExercised ?? 0;
    notRun += summary.notRun ?? 0;
  }
  return withSkipKinds(total, notExercised, notRun);
}
