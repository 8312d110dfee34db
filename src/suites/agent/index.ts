export * from './cases.js';
export type { AgentCaseResult, AgentCtx, AgentSuiteOptions } from './context.js';
export * from './entry.js';
export * from './script.js';
export * from './suite.js';
export * from './target.js';
