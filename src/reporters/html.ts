import { createHash } from 'node:crypto';
import { baselineCounts, failsRun } from '../harness/baseline.js';
import type { SuiteResult, Summary } from '../harness/results.js';
import { runName } from '../harness/run-name.js';
import { formatShard } from '../harness/shard.js';
import { cappedRuns, causeGroups, groupHeadline, notRunChecks, notRunReason } from './grouping.js';
import { renderCheck } from './html/check-row.js';
import { clip, escapeHtml } from './html/escape.js';
import { SCRIPT } from './html/script.js';
import { STYLE } from './html/style.js';
import { formatDuration, totalSummary } from './text.js';

export { escapeHtml } from './html/escape.js';

const STATUS_COUNTS: readonly [status: 'pass' | 'fail' | 'warn' | 'skip', key: keyof Summary][] = [
  ['pass', 'passed'],
  ['fail', 'failed'],
  ['warn', 'warned'],
  ['skip', 'skipped'],
];

/**
 * Nothing may leave the page, and only our own script may run: even a `<script>` that got
 * past escaping would be refused, and so would any URL a result names.
 */
function contentSecurityPolicy(): string {
  const hash = createHash('sha256').update(SCRIPT).digest('base64');
  return `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'; img-src data:; form-action 'none'; base-uri 'none'`;
}

function countsLine(s: Summary): string {
  const kinds = [
    ...((s.notExercised ?? 0) > 0 ? [`${s.notExercised} not exercised`] : []),
    ...((s.notRun ?? 0) > 0 ? [`${s.notRun} not run`] : []),
  ];
  const skipped = `${s.skipped} skipped${kinds.length === 0 ? '' : ` (${kinds.join(', ')})`}`;
  return `${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${skipped}`;
}

/** `a, b, c` as code, for a banner's list of checks. */
function idList(ids: readonly string[]): string {
  return ids.map((id) => `<code>${escapeHtml(id)}</code>`).join(', ');
}

/**
 * What is said once for a suite, above its table: the target that could not be run, the
 * failures that share one cause (one banner per cause, with the checks it explains), why the
 * checks not run were not run, and the checks that capped their property runs.
 */
function banners(r: SuiteResult): string {
  const out: string[] = [];
  if (r.error !== undefined) {
    out.push(
      `<div class="banner fail"><strong>The target could not be run</strong> (${escapeHtml(r.error.code)}); no check ran.<pre>${escapeHtml(clip(r.error.message, 20_000))}</pre></div>`,
    );
  }
  for (const g of causeGroups(r.checks)) {
    const kind = g.checks.some((c) => c.status === 'fail') ? 'fail' : 'warn';
    out.push(
      `<div class="banner ${kind} cause"><strong>${escapeHtml(groupHeadline(g))}:</strong><pre>${escapeHtml(clip(g.cause, 20_000))}</pre><div class="note">${idList(g.checks.map((c) => c.id))}</div></div>`,
    );
  }
  const notRun = notRunChecks(r.checks);
  const reason = notRunReason(r);
  if (notRun.length > 0 && reason !== undefined) {
    out.push(
      `<div class="banner skip stopped"><strong>${notRun.length} ${notRun.length === 1 ? 'check' : 'checks'} not run:</strong> ${escapeHtml(reason)}</div>`,
    );
  }
  const capped = cappedRuns(r);
  if (capped !== undefined) {
    out.push(
      `<div class="banner note-banner">${capped.checks.length} ${capped.checks.length === 1 ? 'check ran' : 'checks ran'} fewer property runs than the ${r.runs} asked (${capped.lowest === capped.highest ? capped.lowest : `${capped.lowest} to ${capped.highest}`} per property; each run starts the target): ${idList(capped.checks.map((c) => c.id))}</div>`,
    );
  }
  return out.join('\n');
}

function section(r: SuiteResult, key: number): string {
  const s = r.summary;
  const context = {
    ...(r.runs === undefined ? {} : { askedRuns: r.runs }),
    stopped: notRunReason(r) !== undefined,
    bannerCauses: new Set(causeGroups(r.checks).map((g) => g.cause)),
  };
  const counts = STATUS_COUNTS.map(([status, field]) => `data-${status}="${s[field]}"`).join(' ');
  return [
    `<section class="suite" id="suite-${key}" data-suite="${key}" ${counts}>`,
    `<h2>${escapeHtml(runName(r))}</h2>`,
    `<p class="meta">target <code>${escapeHtml(r.target)}</code> · seed ${r.seed}${r.runs === undefined ? '' : ` · ${r.runs} runs per property`}${r.shard === undefined ? '' : ` · shard ${formatShard(r.shard)}`} · started ${escapeHtml(r.startedAt)} · ${formatDuration(r.durationMs)} · ${countsLine(s)}</p>`,
    banners(r),
    '<p class="empty" hidden>No check of this suite matches the filters.</p>',
    '<table class="checks">',
    '<thead><tr><th>status</th><th>id</th><th>clause</th><th>level</th><th>duration</th><th>message</th></tr></thead>',
    r.checks.map((c) => renderCheck(c, context)).join('\n'),
    '</table>',
    '</section>',
  ].join('\n');
}

function filters(results: readonly SuiteResult[], total: Summary): string {
  const statusBoxes = STATUS_COUNTS.map(
    ([status, field]) =>
      `<label><input type="checkbox" data-status="${status}" checked> <span class="badge ${status}">${status}</span> <span class="count" data-count-status="${status}">${total[field]}</span></label>`,
  );
  const suiteBoxes = results.map(
    (r, key) =>
      `<label><input type="checkbox" data-suite="${key}" checked> ${escapeHtml(runName(r))} <span class="count" data-count-suite="${key}">${r.checks.length}</span></label>`,
  );
  const all = results.reduce((n, r) => n + r.checks.length, 0);
  return [
    '<form id="filters">',
    `<fieldset class="statuses"><legend>Status</legend>${statusBoxes.join('')}</fieldset>`,
    `<fieldset class="suites"><legend>Suite</legend>${suiteBoxes.join('')}</fieldset>`,
    '<button type="button" id="only-problems">failures and warnings only</button>',
    '<button type="button" id="show-all">show all</button>',
    `<output id="shown">showing ${all} of ${all} checks</output>`,
    '</form>',
  ].join('');
}

/**
 * A self-contained HTML page (inline style and one inline script, no URL at all): per suite
 * a summary and every check with clause, level, status, duration and message; for a
 * failure or warning the expected/actual difference and the evidence drawn (frames on a
 * time axis, JSON-RPC sessions side by side); client-side filters by status and suite.
 * `strict`: warnings count as failures in the headline.
 */
export function formatHtml(results: readonly SuiteResult[], options: { strict: boolean }): string {
  const t = totalSummary(results);
  // The same verdict as the exit status: the baseline and --strict taken into account.
  const failing = results.reduce((n, r) => n + r.checks.filter((c) => failsRun(c, options.strict)).length, 0);
  const b = baselineCounts(results);
  const notes = [
    ...(options.strict ? ['--strict: warnings count as failures'] : []),
    ...(b.expectedFailures > 0 ? [`${b.expectedFailures} expected failures listed in the baseline`] : []),
    ...(b.stale > 0 ? [`${b.stale} stale baseline entries`] : []),
    ...(b.notReproduced > 0 ? [`${b.notReproduced} expected failures not reproduced with this seed`] : []),
  ];
  const stops = [...new Set(results.flatMap((r) => (r.stopped === undefined ? [] : [r.stopped.message])))];
  notes.push(...stops.map((m) => `stopped early: ${m}`));
  // A stop's message quotes the target (a stderr line of a runner that could not start again).
  const strictNote = notes.length === 0 ? '' : ` (${escapeHtml(notes.join('; '))})`;
  const unavailable = results.filter((r) => r.error !== undefined).length;
  const verdict =
    unavailable > 0
      ? `<p class="verdict fail" id="verdict">NOT RUN: the target of ${unavailable === 1 ? 'a suite' : `${unavailable} suites`} could not be run${failing > 0 ? `; ${failing} failing check${failing === 1 ? '' : 's'}` : ''}${strictNote}</p>`
      : failing > 0
        ? `<p class="verdict fail" id="verdict">FAILED: ${failing} failing check${failing === 1 ? '' : 's'}${strictNote}</p>`
        : stops.length > 0
          ? `<p class="verdict fail" id="verdict">INCOMPLETE: no check failed, but not every check ran${strictNote}</p>`
          : `<p class="verdict pass" id="verdict">PASSED${strictNote}</p>`;
  const version = results[0]?.wirecheck;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>wirecheck report: ${escapeHtml(results.map(runName).join(', ') || 'no suites')}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>wirecheck report${version === undefined ? '' : ` <small class="meta">v${escapeHtml(version)}</small>`}</h1>`,
    verdict,
    `<p class="verdict meta" id="totals">${countsLine(t)}</p>`,
    filters(results, t),
    '<main>',
    ...results.map(section),
    '</main>',
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
