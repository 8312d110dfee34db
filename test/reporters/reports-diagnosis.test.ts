import { describe, expect, test } from 'vitest';
import type { CheckResult, SuiteResult } from '../../src/harness/results.js';
import { formatHtml } from '../../src/reporters/html.js';
import { formatResultsJson, formatSummaryJson, RunSummary } from '../../src/reporters/json.js';
import { formatJunit } from '../../src/reporters/junit.js';
import { check, suiteResult } from './fixtures.js';
import { xmlProblems } from './xml-wellformed.js';

const CAUSE =
  "the client exited 1 before sending a request; stderr:\nError: Cannot find module '/nonexistent.js'";
const STOP = { kind: 'interrupted' as const, signal: 'SIGINT' as const, message: 'interrupted by SIGINT' };

function grouped(): SuiteResult {
  const fails: CheckResult[] = ['demo.a', 'demo.b', 'demo.c'].map((id) =>
    check({ id, status: 'fail', message: `${id} saw no request`, sharedCause: CAUSE }),
  );
  return suiteResult(
    'demo',
    [
      ...fails,
      check({ id: 'demo.ne', status: 'skip', skipKind: 'not-exercised', message: 'no frame of that kind' }),
      check({ id: 'demo.slow', status: 'pass', tier: 'full', runs: 15 }),
      check({
        id: 'demo.labels',
        status: 'fail',
        message: '2 labels fail',
        labels: [
          { label: 'missing model', message: 'got 500' },
          { label: 'max_tokens 0', message: 'got 200' },
        ],
      }),
      check({ id: 'demo.nr1', status: 'skip', skipKind: 'not-run', message: `not run: ${STOP.message}` }),
      check({ id: 'demo.nr2', status: 'skip', skipKind: 'not-run', message: `not run: ${STOP.message}` }),
    ],
    { runs: 100, stopped: STOP },
  );
}

function unavailable(): SuiteResult {
  return suiteResult('demo', [], {
    error: { code: 'WC_TARGET_UNAVAILABLE', message: `the client command could not start: ${CAUSE}` },
  });
}

describe('results.json and summary.json', () => {
  test('results.json keeps runs, labels, the stop and the skip kinds; the summary counts the kinds', () => {
    const parsed = JSON.parse(formatResultsJson(grouped()));
    expect(parsed.summary).toEqual({
      passed: 1,
      failed: 4,
      warned: 0,
      skipped: 3,
      notExercised: 1,
      notRun: 2,
    });
    expect(parsed.runs).toBe(100);
    expect(parsed.stopped).toEqual(STOP);
    expect(parsed.checks.find((c: CheckResult) => c.id === 'demo.slow')).toMatchObject({
      tier: 'full',
      runs: 15,
    });
    expect(parsed.checks.find((c: CheckResult) => c.id === 'demo.labels').labels).toHaveLength(2);
  });

  test('a clean summary keeps exactly the four counts of the contract', () => {
    const parsed = JSON.parse(
      formatResultsJson(suiteResult('demo', [check({ id: 'demo.ok', status: 'pass' })])),
    );
    expect(parsed.summary).toEqual({ passed: 1, failed: 0, warned: 0, skipped: 0 });
  });

  test('a target that could not run: an error and no check', () => {
    const parsed = JSON.parse(formatResultsJson(unavailable()));
    expect(parsed.checks).toEqual([]);
    expect(parsed.error.code).toBe('WC_TARGET_UNAVAILABLE');
    const summary = RunSummary.parse(JSON.parse(formatSummaryJson([unavailable(), grouped()])));
    expect(summary.suites[0]?.error?.code).toBe('WC_TARGET_UNAVAILABLE');
    expect(summary.suites[1]?.stopped).toEqual(STOP);
  });
});

describe('junit.xml', () => {
  test('not exercised says so in its skip message; a shared cause and every label are in the failure text', () => {
    const xml = formatJunit([grouped()], { strict: false });
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml).toContain('<skipped message="not exercised: no frame of that kind"/>');
    expect(xml).toContain('<skipped message="not run: interrupted by SIGINT"/>');
    expect(xml).toContain(
      'cause: the client exited 1 before sending a request; stderr:\nError: Cannot find module &apos;/nonexistent.js&apos;'
        .replace('&apos;', "'")
        .replace('&apos;', "'"),
    );
    expect(xml).toContain('[missing model] got 500\n[max_tokens 0] got 200');
    expect(xml).toContain('<property name="stopped" value="interrupted by SIGINT"/>');
    expect(xml).toContain('<property name="runs" value="100"/>');
  });

  test('a target that could not run is one error testcase; no check is counted', () => {
    const xml = formatJunit([unavailable()], { strict: false });
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuite name="demo" tests="1" failures="0" errors="1" skipped="0"/);
    expect(xml).toContain('<testcase classname="demo" name="demo (target unavailable)" time="0.000">');
    expect(xml).toMatch(
      /<error message="the client command could not start: [^"]*" type="WC_TARGET_UNAVAILABLE">/,
    );
  });
});

describe('report.html', () => {
  test('a banner per shared cause, the stop said once, skip kinds, tiers, labels and capped runs on their rows', () => {
    const html = formatHtml([grouped()], { strict: false });
    expect(html).toContain('<div class="banner fail cause"><strong>3 checks failed for one cause:</strong>');
    expect(html.match(/Cannot find module/g)).toHaveLength(1);
    expect(html.match(/cause: shared with other checks, shown above/g)).toHaveLength(3);
    expect(html).toContain('<strong>2 checks not run:</strong> interrupted by SIGINT');
    expect(html.match(/interrupted by SIGINT/g)).toHaveLength(2); // the banner and the headline note
    expect(html).toContain('<pre>not run (see above)</pre>');
    expect(html).toContain('<div class="kind not-exercised">not exercised</div>');
    expect(html).toContain('<div class="tier">full</div>');
    expect(html).toContain('15 runs per property (capped from 100)');
    expect(html).toContain('<li><code>missing model</code> got 500</li>');
    expect(html).toContain('1 not exercised, 2 not run');
    expect(html).toContain('stopped early: interrupted by SIGINT');
  });

  test('a target that could not run: the page says so, never PASSED', () => {
    const html = formatHtml([unavailable()], { strict: false });
    expect(html).toContain('NOT RUN: the target of a suite could not be run');
    expect(html).toContain(
      '<strong>The target could not be run</strong> (WC_TARGET_UNAVAILABLE); no check ran.',
    );
    expect(html).not.toContain('PASSED');
  });

  test('a run stopped with no failure is INCOMPLETE, not PASSED', () => {
    const html = formatHtml(
      [
        suiteResult(
          'demo',
          [
            check({
              id: 'demo.nr',
              status: 'skip',
              skipKind: 'not-run',
              message: `not run: ${STOP.message}`,
            }),
          ],
          { stopped: STOP },
        ),
      ],
      { strict: false },
    );
    expect(html).toContain('INCOMPLETE');
    expect(html).not.toContain('PASSED');
  });
});
