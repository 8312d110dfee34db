export * from './arbitraries.js';
export type { Canaries, RunnerCtx, RunnerSuiteOptions } from './context.js';
export * from './entry.js';
export * from './output-rules.js';
export * from './processes.js';
export type { SessionRun, SessionSpec } from './session.js';
export * from './suite.js';
export * from './target.js';
