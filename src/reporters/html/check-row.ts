import type { CheckResult, Evidence } from '../../harness/results.js';
import { formatDuration } from '../text.js';
import { renderDifference } from './difference.js';
import { clip, escapeHtml } from './escape.js';
import { renderFrames } from './frames.js';
import { renderJsonRpc } from './jsonrpc.js';

const BASELINE_WORDS = {
  'expected-failure': 'expected failure',
  stale: 'stale entry (the check no longer fails; remove it)',
  'not-reproduced':
    "expected failure not reproduced with this run's seed (its verdict depends on generated input; the entry is stale only if the check also passes with the seed it failed with)",
} as const;

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

/** What a row knows of its run beyond the check. */
export interface RowContext {
  /** `--runs` of the run: a check that ran fewer says so. */
  readonly askedRuns?: number;
  /** The run stopped and said why once, above the table: a row not run does not repeat it. */
  readonly stopped?: boolean;
  /** Causes shown once in a banner above the table: a row of one only points there. */
  readonly bannerCauses?: ReadonlySet<string>;
}

const SKIP_KIND_TEXT = {
  'not-applicable': 'does not apply',
  'not-exercised': 'not exercised',
  'not-run': 'not run',
};

/** The small print under a row's badge: the kind of a skip. */
function skipKindOf(c: CheckResult): string {
  if (c.status !== 'skip' || c.skipKind === undefined) return '';
  return `<div class="kind ${c.skipKind}">${SKIP_KIND_TEXT[c.skipKind]}</div>`;
}

/** Notes under a row's message: a shared cause, a labelled property's labels, capped runs. */
function notesOf(c: CheckResult, context: RowContext): string {
  const notes: string[] = [];
  if (c.sharedCause !== undefined && (c.status === 'fail' || c.status === 'warn')) {
    if (context.bannerCauses?.has(c.sharedCause) === true) {
      notes.push('<div class="note">cause: shared with other checks, shown above</div>');
    } else if (c.sharedCause !== c.message) {
      notes.push(`<div class="note">cause: ${escapeHtml(clip(c.sharedCause, MAX_MESSAGE_CHARS))}</div>`);
    }
  }
  if ((c.labels?.length ?? 0) > 1) {
    const items = (c.labels ?? []).map(
      (l) => `<li><code>${escapeHtml(l.label)}</code> ${escapeHtml(clip(l.message, MAX_MESSAGE_CHARS))}</li>`,
    );
    notes.push(`<ul class="labels">${items.join('')}</ul>`);
  }
  if (c.runs !== undefined && context.askedRuns !== undefined && c.runs < context.askedRuns) {
    notes.push(`<div class="note">${c.runs} runs per property (capped from ${context.askedRuns})</div>`);
  }
  return notes.join('');
}

/**
 * One check as a `<tbody>` (its row, and for a failure or warning a detail row with the
 * difference and the picture), classed by status so the filters hide both rows at once.
 */
export function renderCheck(c: CheckResult, context: RowContext = {}): string {
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
      : `<div class="baseline ${c.baseline.status}">baseline: ${BASELINE_WORDS[c.baseline.status]}: ${escapeHtml(c.baseline.reason)}</div>`;
  const problem = c.status === 'fail' || c.status === 'warn';
  const message = context.stopped === true && c.skipKind === 'not-run' ? 'not run (see above)' : c.message;
  const detail = problem ? detailOf(c) : '';
  return [
    `<tbody class="check ${c.status}">`,
    '<tr class="row">',
    `<td><span class="badge">${c.status}</span>${skipKindOf(c)}</td>`,
    `<td class="id"><code>${escapeHtml(c.id)}</code><div class="desc">${escapeHtml(c.description)}</div></td>`,
    `<td>${escapeHtml(c.clause)}</td>`,
    `<td>${c.level}${c.tier === 'full' ? '<div class="tier">full</div>' : ''}</td>`,
    `<td class="num">${formatDuration(c.durationMs)}</td>`,
    `<td class="msg"><pre>${escapeHtml(clip(message, MAX_MESSAGE_CHARS))}</pre>${notesOf(c, context)}${baseline}${reproduce}${counterexample}</td>`,
    '</tr>',
    detail === '' ? '' : `<tr class="detail"><td colspan="6">${detail}</td></tr>`,
    '</tbody>',
  ].join('');
}
