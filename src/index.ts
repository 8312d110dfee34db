// The programmatic API of wirecheck.

export * from './clients/messages/index.js';
export * from './harness/errors.js';
export {
  CHECK_STATUSES,
  CheckResult,
  CheckStatus,
  exitCodeOf,
  Level,
  SuiteResult,
  Summary,
  summarize,
} from './harness/results.js';
export { type RunOptions, randomSeed, reproduceLine, runSuite, selectChecks } from './harness/run-suite.js';
export * from './mocks/messages/index.js';
export * from './protocol/messages/index.js';
export * from './protocol/sse/index.js';
export * from './reporters/index.js';
export {
  type Check,
  type CheckEnv,
  CheckFailure,
  CheckSkipped,
  expectThat,
  type Suite,
  show,
  TargetUnavailable,
} from './suites/check.js';
export { checkProperty } from './suites/property.js';
export * from './suites/registry.js';
export * from './suites/target-options.js';
export { VERSION } from './version.js';
