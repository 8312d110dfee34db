import { failsRun } from '../harness/baseline.js';
import type { CheckResult, SuiteResult } from '../harness/results.js';
import { runName } from '../harness/run-name.js';
import { notRunChecks } from './grouping.js';
import { withoutInvalidXmlChars } from './text.js';
import { unjudgedStop } from './unjudged.js';

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text content: markup characters escaped, characters XML 1.0 forbids made visible. */
export function escapeXmlText(text: string): string {
  return withoutInvalidXmlChars(text).replace(/[&<>]/g, (ch) => XML_ENTITIES[ch] ?? ch);
}

/**
 * Attribute values: also quotes, and tab/LF/CR as character references, which an XML
 * parser would otherwise normalise to spaces.
 */
export function escapeXmlAttribute(text: string): string {
  return withoutInvalidXmlChars(text).replace(
    /[&<>"'\t\n\r]/g,
    (ch) => XML_ENTITIES[ch] ?? `&#${ch.charCodeAt(0)};`,
  );
}

function attributes(attrs: Record<string, string | number>): string {
  return Object.entries(attrs)
    .map(([name, value]) => ` ${name}="${escapeXmlAttribute(String(value))}"`)
    .join('');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** The body of a <failure>: what was expected, what arrived, and how to run it again. */
function failureText(c: CheckResult): string {
  const lines = [`${c.message}`, `clause: ${c.clause}`];
  if (c.sharedCause !== undefined && c.sharedCause !== c.message) lines.push(`cause: ${c.sharedCause}`);
  for (const l of c.labels ?? []) lines.push(`[${l.label}] ${l.message}`);
  if (c.expected !== undefined) lines.push(`expected: ${c.expected}`);
  if (c.actual !== undefined) lines.push(`actual: ${c.actual}`);
  if (c.reproduce !== undefined) lines.push(`reproduce: ${c.reproduce}`);
  if (c.counterexample !== undefined) {
    lines.push(`counterexample: ${c.counterexample.file}`, `replay: ${c.counterexample.replay}`);
  }
  return lines.join('\n');
}

/** `classname`: the run's name, so the checks of each run of a suite are testcases of their own. */
function testcase(c: CheckResult, classname: string, strict: boolean): string {
  const open = `    <testcase${attributes({ classname, name: c.id, time: seconds(c.durationMs) })}`;
  // A --baseline expected failure is skipped (CI stays green), a stale entry fails.
  if (c.baseline?.status === 'expected-failure') {
    const skipped = `<skipped${attributes({ message: `expected failure (baseline): ${c.baseline.reason}` })}/>`;
    return `${open}>\n      ${skipped}\n      <system-out>${escapeXmlText(failureText(c))}</system-out>\n    </testcase>`;
  }
  if (c.baseline?.status === 'stale') {
    const message = `stale baseline entry (${c.baseline.reason}): the check passes now; remove ${c.suite}:${c.id} from the baseline`;
    return `${open}>\n      <failure${attributes({ message, type: 'stale' })}/>\n    </testcase>`;
  }
  if (c.baseline?.status === 'not-reproduced') {
    // Passed with this seed: a pass, with the word that another seed may still fail it.
    const note = `expected failure (baseline: ${c.baseline.reason}) not reproduced with this run's seed: its verdict depends on generated input; the entry is stale only if the check also passes with the seed it failed with`;
    return `${open}>\n      <system-out>${escapeXmlText(note)}</system-out>\n    </testcase>`;
  }
  if (c.status === 'pass') return `${open}/>`;
  let body: string;
  if (c.status === 'skip') {
    // Not exercised judged nothing; say so where a CI page shows only the message.
    const message = c.skipKind === 'not-exercised' ? `not exercised: ${c.message}` : c.message;
    body = `<skipped${attributes({ message })}/>`;
  } else if (c.status === 'fail' || strict) {
    const type = c.status === 'fail' ? 'fail' : 'warn';
    body = `<failure${attributes({ message: c.message, type })}>${escapeXmlText(failureText(c))}</failure>`;
  } else {
    body = `<system-out>${escapeXmlText(`WARNING ${failureText(c)}`)}</system-out>`;
  }
  return `${open}>\n      ${body}\n    </testcase>`;
}

function failuresOf(r: SuiteResult, strict: boolean): number {
  return r.checks.filter((c) => failsRun(c, strict)).length;
}

function skippedOf(r: SuiteResult): number {
  return r.checks.filter((c) => c.status === 'skip' || c.baseline?.status === 'expected-failure').length;
}

/** One testcase holding an <error>: the testcases that say a run was not (wholly) judged. */
function errorCase(r: SuiteResult, what: string, error: { message: string; type: string; text: string }) {
  const name = runName(r);
  const open = `    <testcase${attributes({ classname: name, name: `${name} (${what})`, time: '0.000' })}>`;
  const body = `      <error${attributes({ message: error.message, type: error.type })}>${escapeXmlText(error.text)}</error>`;
  return [open, body, '    </testcase>'];
}

/**
 * The <error> testcases of a run, counted in `tests` and `errors`: a target that could not be
 * run (in place of the checks, none counted as run), and a stop that left checks unjudged
 * without failing one (see unjudgedStop), which a CI page would otherwise show as a pass
 * beside a non-zero exit status.
 */
function errorCases(r: SuiteResult): string[][] {
  const cases: string[][] = [];
  if (r.error !== undefined) {
    const { code, message } = r.error;
    cases.push(errorCase(r, 'target unavailable', { message, type: code, text: message }));
  }
  const stop = unjudgedStop(r);
  if (stop !== undefined) {
    const notRun = notRunChecks(r.checks).length;
    const count = `${notRun} of ${r.checks.length} checks were not run: the run did not judge them`;
    const text = notRun === 0 ? stop.message : `${stop.message}\n${count}`;
    cases.push(errorCase(r, 'stopped', { message: stop.message, type: stop.kind, text }));
  }
  return cases;
}

function testsuite(r: SuiteResult, strict: boolean): string {
  const errors = errorCases(r);
  const head = `  <testsuite${attributes({
    name: runName(r),
    tests: r.checks.length + errors.length,
    failures: failuresOf(r, strict),
    errors: errors.length,
    skipped: skippedOf(r),
    time: seconds(r.durationMs),
    timestamp: r.startedAt,
  })}>`;
  const properties = [
    '    <properties>',
    ...Object.entries({
      target: r.target,
      seed: String(r.seed),
      wirecheck: r.wirecheck,
      ...(r.runs === undefined ? {} : { runs: String(r.runs) }),
      ...(r.stopped === undefined ? {} : { stopped: r.stopped.message }),
    }).map(([name, value]) => `      <property${attributes({ name, value })}/>`),
    '    </properties>',
  ];
  return [
    head,
    ...properties,
    ...errors.flat(),
    ...r.checks.map((c) => testcase(c, runName(r), strict)),
    '  </testsuite>',
  ].join('\n');
}

/**
 * JUnit XML of one or more suite runs: a testsuite per run (`tool-server (stdio)` for one of
 * several runs of a suite), a testcase per check.
 * Warnings pass (with the warning in <system-out>) unless `strict`, where they fail.
 */
export function formatJunit(results: readonly SuiteResult[], options: { strict: boolean }): string {
  const errors = results.reduce((n, r) => n + errorCases(r).length, 0);
  const head = `<testsuites${attributes({
    name: 'wirecheck',
    tests: results.reduce((n, r) => n + r.checks.length, 0) + errors,
    failures: results.reduce((n, r) => n + failuresOf(r, options.strict), 0),
    errors,
    skipped: results.reduce((n, r) => n + skippedOf(r), 0),
    time: seconds(results.reduce((t, r) => t + r.durationMs, 0)),
  })}>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    head,
    ...results.map((r) => testsuite(r, options.strict)),
    '</testsuites>',
    '',
  ].join('\n');
}
