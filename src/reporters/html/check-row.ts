import type { CheckResult, Evidence } from '../../harness/results.js';
import { formatDuration } from '../text.js';
import { renderDifference } from './difference.js';
import { clip, escapeHtml } from './escape.js';
import { renderFrames } from './frames.js';
import { renderJsonRpc } from './jsonrpc.js';

/** Characters of a check's message shown (a target can make it arbitrarily long). */
const MAX_MESSAGE_CHARS = 20_000;

export function renderEvidence(evidence: Evidence): string {
  return evidence.kind === 'frames' ? renderFrames(evidence) : renderJsonRpc(evidence);
}

function detailOf(c: CheckResult): string {
  const parts = [renderDifference(c.expected, c.actual)];
  if (c.evidence) parts.push(renderEvidence(c.evidence));
  return parts.join('');
}

/**
 * One check as a `<tbody>` (its row, and for a failure or warning a detail row with the
 * difference and the picture), classed by status so the filters hide both rows at once.
 */
export function renderCheck(c: CheckResult): string {
  const reproduce =
    c.reproduce === undefined
      ? ''
      : `<div class="repro">reproduce: <code>${escapeHtml(c.reproduce)}</code></div>`;
  const counterexample =
    c.counterexample === undefined
      ? ''
      : `<div class="repro">counterexample: <code>${escapeHtml(c.counterexample.file)}</code></div><div class="repro">replay: <code>${escapeHtml(c.counterexample.replay)}</code></div>`;
  const baseline =
    c.baseline === undefined
      ? ''
      : `<div class="baseline ${c.baseline.status}">baseline: ${c.baseline.status === 'stale' ? 'stale entry (the check no longer fails; remove it)' : 'expected failure'}: ${escapeHtml(c.baseline.reason)}</div>`;
  const problem = c.status === 'fail' || c.status === 'warn';
  const detail = problem ? detailOf(c) : '';
  return [
    `<tbody class="check ${c.status}">`,
    '<tr class="row">',
    `<td><span class="badge">${c.status}</span></td>`,
    `<td class="id"><code>${escapeHtml(c.id)}</code><div class="desc">${escapeHtml(c.description)}</div></td>`,
    `<td>${escapeHtml(c.clause)}</td>`,
    `<td>${c.level}</td>`,
    `<td class="num">${formatDuration(c.durationMs)}</td>`,
    `<td class="msg"><pre>${escapeHtml(clip(c.message, MAX_MESSAGE_CHARS))}</pre>${baseline}${reproduce}${counterexample}</td>`,
    '</tr>',
    detail === '' ? '' : `<tr class="detail"><td colspan="6">${detail}</td></tr>`,
    '</tbody>',
  ].join('');
}
