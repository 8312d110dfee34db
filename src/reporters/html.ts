import type { CheckResult, SuiteResult } from '../harness/results.js';
import { formatDuration, totalSummary, withoutInvalidXmlChars } from './text.js';

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return withoutInvalidXmlChars(text).replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}

// Inline only: the page must open from a CI artifact with no network.
const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.meta { color: #555; }
table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
th, td { border: 1px solid #ddd; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num, td.id { text-align: right; white-space: nowrap; }
td.id { text-align: left; }
.label { color: #555; font-size: 12px; margin-top: .25rem; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.35 ui-monospace, monospace; }
.status { font-weight: 600; text-transform: uppercase; }
tr.fail .status { color: #b00020; } tr.warn .status { color: #8a5a00; }
tr.pass .status { color: #176f2c; } tr.skip .status { color: #666; }
tr.fail { background: #fff3f3; } tr.warn { background: #fffaf0; }
`;

function details(c: CheckResult): string {
  const parts: string[] = [];
  if (c.expected !== undefined)
    parts.push(`<div class="label">expected:</div><pre>${escapeHtml(c.expected)}</pre>`);
  if (c.actual !== undefined)
    parts.push(`<div class="label">actual:</div><pre>${escapeHtml(c.actual)}</pre>`);
  return parts.join('');
}

function row(c: CheckResult): string {
  const reproduce =
    c.reproduce === undefined
      ? ''
      : `<div class="label">reproduce:</div><pre>${escapeHtml(c.reproduce)}</pre>`;
  return [
    `<tr class="${c.status}">`,
    `<td class="id"><code>${escapeHtml(c.id)}</code></td>`,
    `<td>${escapeHtml(c.clause)}</td>`,
    `<td class="status">${c.status}</td>`,
    `<td class="num">${formatDuration(c.durationMs)}</td>`,
    `<td><pre>${escapeHtml(c.message)}</pre>${reproduce}</td>`,
    `<td>${details(c)}</td>`,
    '</tr>',
  ].join('');
}

function section(r: SuiteResult): string {
  const s = r.summary;
  return [
    `<section id="${escapeHtml(r.suite)}">`,
    `<h2>${escapeHtml(r.suite)}</h2>`,
    `<p class="meta">target <code>${escapeHtml(r.target)}</code> · seed ${r.seed} · started ${escapeHtml(r.startedAt)} · ${formatDuration(r.durationMs)} · ${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} skipped</p>`,
    '<table>',
    '<thead><tr><th>id</th><th>clause</th><th>status</th><th>duration</th><th>message</th><th>expected / actual</th></tr></thead>',
    `<tbody>\n${r.checks.map(row).join('\n')}\n</tbody>`,
    '</table>',
    '</section>',
  ].join('\n');
}

/** A self-contained HTML page: a table of checks per suite. */
export function formatHtml(results: readonly SuiteResult[], options: { strict: boolean }): string {
  const t = totalSummary(results);
  const strictNote = options.strict ? ' (--strict: warnings count as failures)' : '';
  const version = results[0]?.wirecheck;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>wirecheck report: ${escapeHtml(results.map((r) => r.suite).join(', ') || 'no suites')}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>wirecheck report${version === undefined ? '' : ` <small class="meta">v${escapeHtml(version)}</small>`}</h1>`,
    `<p>${t.passed} passed, ${t.failed} failed, ${t.warned} warned, ${t.skipped} skipped${strictNote}</p>`,
    ...results.map(section),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
