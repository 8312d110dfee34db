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
 * (sorted by id) with its level, basis, tier, spec clause, rule and description (basis and
 * rule left empty for a check that does not state them). Pure: the same
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
    "**revisions**: for the checks of the MCP suites that hold in some protocol revisions only (`--protocol`, [mcp-revisions.md](mcp-revisions.md)), the revisions they hold in; empty: every revision. **basis** says where a check's rule is written, which decides its level ([levels.md](levels.md)): `spec`, `protocol-must` and `contract` fail; `spec-reference`, `protocol-should` and `real-api` warn. **rule** states the rule in the catalogue's own words, so that no document outside this repository is needed to read it.",
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
      '| id | level | basis | tier | clause | rule | description | revisions |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const c of checks) {
      out.push(
        `| \`${cell(c.id)}\` | ${c.level} | ${c.basis ?? ''} | ${c.tier ?? 'quick'} | ${cell(c.clause)} | ${cell(c.rule ?? '')} | ${cell(c.description)} | ${cell((c.revisions ?? []).join(', '))} |`,
      );
    }
  }
  out.push('');
  return out.join('\n');
}
