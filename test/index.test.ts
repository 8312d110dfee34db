import { describe, expect, test } from 'vitest';
import * as api from '../src/index.js';

describe('the programmatic API', () => {
  test('exports the harness, reporters, registry, errors and protocol from one entry point', () => {
    const names = [
      'runSuite',
      'selectChecks',
      'SuiteResult',
      'CheckResult',
      'exitCodeOf',
      'CheckFailure',
      'TargetUnavailable',
      'checkProperty',
      'writeReports',
      'formatJunit',
      'formatHtml',
      'formatResultsJson',
      'formatConsoleReport',
      'SUITES',
      'registerSuite',
      'findSuite',
      'HARNESS_ERRORS',
      'UsageError',
      'MessageRequest',
      'StreamAccumulator',
      'encodeFrame',
      'createFrameDecoder',
      'VERSION',
    ];
    expect(names.filter((name) => !(name in api))).toEqual([]);
  });
});
