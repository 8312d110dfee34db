export * from './command-line.js';
export * from './environment.js';
export * from './limits.js';
export {
  type BashRunner,
  type BashRunnerOptions,
  createBashRunner,
  describeIsolation,
  HOW_TO_ISOLATE,
  type IsolationInfo,
  RunAbortedError,
  RunnerStartError,
  type RunOutcomeKind,
  type RunReport,
  UNPRIVILEGED,
} from './runner.js';
export {
  type RunBashServiceOptions,
  runBashService,
  type ServeLinesOptions,
  serveJsonLines,
} from './serve.js';
export type { SessionInfo } from './session.js';
export type { ToolOverrides } from './tools.js';
