import {
  DEFAULT_REVISION,
  PROTOCOL_REVISIONS,
  REVISION_CHANGES,
  type RevisionChange,
} from '../protocol/mcp/index.js';
import type { SuiteEntry } from '../suites/registry.js';

/** Where the revisions page is written, relative to the package root. */
export const REVISIONS_DOC_PATH = 'docs/mcp-revisions.md';

/** The suites that take `--protocol`. */
const MCP_SUITES = ['tool-server', 'tool-client'];

function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, ' ').replace(/\|/g, '\\|');
}

/**
 * docs/mcp-revisions.md: per MCP revision, what changed that a tools-only server or client
 * can see (src/protocol/mcp/revision-changes.ts, with the text each change comes from), the
 * checks that cover it, and the checks that hold in some revisions only. Pure: the same data
 * gives the same bytes, so a test can tell when the page is stale.
 */
export function formatRevisionsMarkdown(
  entries: readonly SuiteEntry[],
  changes: readonly RevisionChange[] = REVISION_CHANGES,
): string {
  const checks = new Map(entries.flatMap(({ suite }) => suite.checks.map((c) => [c.id, c] as const)));
  const out: string[] = [
    '<!-- Generated from src/protocol/mcp/revision-changes.ts and the suite registry by `npm run docs:checks`. Do not edit. -->',
    '',
    '# MCP revisions',
    '',
    `The tool-server and tool-client suites speak one MCP revision per run: \`--protocol ${PROTOCOL_REVISIONS.join('|')}\` (default ${DEFAULT_REVISION}, the one the spec fixes). The tool-server suite asks for it in \`initialize\`; the tool-client suite's mock servers answer it. A check whose rule holds in some revisions only is skipped as *not applicable* under the others, saying which revisions it is for; \`wirecheck list\` and [checks.md](checks.md) show them. Fields a later revision added (titles, icons, annotations, \`structuredContent\`, new content types) are never a failure under an earlier one.`,
    '',
    "Below, per revision, what changed that a tools-only server or client can see on the wire, quoted from the revision's own text, and the checks that judge it. Authorization, resources, prompts, sampling, elicitation and completions are outside what these suites test.",
  ];
  for (const revision of PROTOCOL_REVISIONS.slice(1)) {
    if (out.at(-1) !== '') out.push('');
    out.push(`## ${revision}`, '');
    for (const change of changes.filter((c) => c.revision === revision)) {
      out.push(
        `### ${change.kind}: ${oneLine(change.summary)}`,
        '',
        `> ${oneLine(change.source.text)}`,
        '',
        `Source: <${change.source.url}>. Seen in: ${change.seenIn}.`,
        '',
      );
      if (change.checks.length > 0) {
        // A shape check that accepts the new field counts: it is what keeps it from being a failure.
        out.push('Judged (or, for a new optional field, accepted) by:', '');
        for (const id of change.checks) {
          const c = checks.get(id);
          const level = c === undefined ? 'not registered' : c.level;
          const only = c?.revisions === undefined ? '' : ` (${c.revisions.join(', ')})`;
          out.push(`- \`${id}\`: ${level}${only}`);
        }
        out.push('');
      }
      if (change.uncovered !== undefined) out.push(`Not covered here: ${oneLine(change.uncovered)}`, '');
    }
  }
  if (out.at(-1) !== '') out.push('');
  out.push(
    '## Checks that hold in some revisions only',
    '',
    `| check | level | ${PROTOCOL_REVISIONS.join(' | ')} |`,
    `| --- | --- | ${PROTOCOL_REVISIONS.map(() => '---').join(' | ')} |`,
  );
  for (const { suite } of entries.filter((e) => MCP_SUITES.includes(e.suite.name))) {
    for (const c of [...suite.checks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
      if (c.revisions === undefined) continue;
      const cells = PROTOCOL_REVISIONS.map((r) => (c.revisions?.includes(r) ? 'yes' : ''));
      out.push(`| \`${c.id}\` | ${c.level} | ${cells.join(' | ')} |`);
    }
  }
  out.push(
    '',
    'Every other check of the two suites holds in every revision that has its transport: the `http.*` checks in 2025-03-26 and later (Streamable HTTP came with it, so a run over it speaks 2025-03-26 unless `--protocol` names a later revision, and `--protocol 2024-11-05` with Streamable HTTP is a usage error), the rest in all four.',
    '',
  );
  return out.join('\n');
}
