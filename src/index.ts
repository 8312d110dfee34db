// The programmatic API of wirecheck.

// runSuite by suite name and target options, or by suite object and target (see docs/ci.md).
export {
  type AnySuite,
  assertOnlyMatches,
  resolveSuite,
  runSuite,
  type SuiteRunOptions,
} from './api.js';
export * from './clients/messages/index.js';
export * from './clients/tools/index.js';
export { CounterexampleFixture, formatCounterexample } from './fixtures/counterexample.js';
export * from './fixtures/index.js';
export {
  applyBaseline,
  type Baseline,
  BaselineEntry,
  failsRun,
  markCheck,
  parseBaseline,
  readBaseline,
  verdictOf,
} from './harness/baseline.js';
export {
  type Check,
  type CheckEnv,
  CheckFailure,
  CheckSkipped,
  expectThat,
  type PropertyReplay,
  type Suite,
  show,
  TargetUnavailable,
} from './harness/check.js';
export {
  COUNTEREXAMPLES_DIR,
  type CounterexampleSource,
  counterexampleFile,
  counterexampleFixture,
  readCounterexample,
  readCounterexampleSync,
  replayLine,
  replayOf,
  replaySettings,
  writeCounterexample,
} from './harness/counterexamples.js';
export * from './harness/errors.js';
export { type MergeInput, mergeResults, mergeSuite } from './harness/merge.js';
export { checkProperty, type PropertyCounterexample, PropertyFailure } from './harness/property.js';
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
export {
  type CheckSettings,
  type RunOptions,
  randomSeed,
  reproduceLine,
  runCheck,
  selectChecks,
} from './harness/run-suite.js';
export { formatShard, parseShard, type Shard, selectShard, shardOfCheck } from './harness/shard.js';
export * from './mocks/messages/index.js';
export * from './mocks/tools/index.js';
export * from './protocol/messages/index.js';
export * from './protocol/sse/index.js';
export * from './recording/index.js';
export * from './recording/tools/index.js';
export * from './reporters/index.js';
export { createProgress, type Progress, type ProgressStream } from './reporters/progress.js';
export {
  type BashRunner,
  type BashRunnerOptions,
  createBashRunner,
  DEFAULT_LIMITS,
  describeIsolation,
  HOW_TO_ISOLATE,
  type Identity,
  ISOLATION_LEVELS,
  type IsolationInfo,
  type IsolationLevel,
  type ResourceLimits,
  RunAbortedError,
  RunnerStartError,
  type RunOutcomeKind,
  type RunReport,
  type ToolOverrides,
  UNPRIVILEGED,
} from './runner/index.js';
export * from './servers/tools/index.js';
export * from './suites/registry.js';
export * from './suites/target-options.js';
export {
  createToolClientSuite,
  type ToolClientSuiteOptions,
  type ToolClientTarget,
  toolClientSuite,
} from './suites/tool-client/index.js';
export {
  arbitraryForSchema,
  argumentsArbitrary,
  createToolServerSuite,
  type ToolServerSuiteOptions,
  type ToolServerTarget as ToolServerSuiteTarget,
  toolServerSuite,
  toolServerTargetFromOptions,
} from './suites/tool-server/index.js';
export {
  ChildProcessTransport,
  type ChildProcessTransportOptions,
  createInMemoryPair,
  isSessionExpired,
  RetryBeyondBudgetError,
  SessionExpiredError,
  SseClientTransport,
  type SseClientTransportOptions,
  StreamableHttpClientTransport,
  type StreamableHttpClientTransportOptions,
  type Transport,
  TransportClosedError,
  TransportError,
  type TransportErrorKind,
} from './transports/index.js';
export { VERSION } from './version.js';
export * from './warm/index.js';
