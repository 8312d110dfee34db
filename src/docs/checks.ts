import type { SuiteEntry } from '../suites/registry.js';

/** Where the catalogue is written, relative to the package root. */
export const CHECKS_DOC_PATH = 'docs/checks.md';

/** One cell of a Markdown table: one line, pipes escaped. */
function cell(text: string): string {
  return text
    .replace(/\s*\r?\n\s*/g, ' ')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .trim();
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The check catalogue as Markdown: per suite (sorted by name) a table of every check
 * (sorted by id) with its level, tier, spec clause and description. Pure: the same
 * registry gives the same bytes, so a test can tell when docs/checks.md is stale.
 */
export function formatChecksMarkdown(entries: readonly SuiteEntry[]): string {
  const suites = [...entries].sort((a, b) => byName(a.suite.name, b.suite.name));
  const total = suites.reduce((n, e) => n + e.suite.checks.length, 0);
  const out: string[] = [
    '<!-- Generated from the suite registry (src/suites/registry.ts) by `npm run docs:checks`. Do not edit. -->',
    '',
    '# Checks',
    '',
    `${total} checks in ${suites.length} suites. **must**: a rule the spec states (or the real protocol's MUST); a failure fails the run. **should**: the spec is silent and implementations reasonably differ; a failure is a warning (a failure under \`--strict\`). **full**: runs only with \`--full\`.`,
    '',
  ];
  for (const s of suites) out.push(`- [${s.suite.name}](#${s.suite.name}) (${s.suite.checks.length})`);
  for (const { suite } of suites) {
    const checks = [...suite.checks].sort((a, b) => byName(a.id, b.id));
    out.push(
      '',
      `## ${suite.name}`,
      '',
      cell(suite.description),
      '',
      '| id | level | tier | clause | description |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const c of checks) {
      out.push(
        `| \`${cell(c.id)}\` | ${c.level} | ${c.tier ?? 'quick'} | ${cell(c.clause)} | ${cell(c.description)} |`,
      );
    }
  }
  out.push('');
  return out.join('\n');
}
