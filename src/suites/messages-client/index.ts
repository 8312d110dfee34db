export * from './arbitraries.js';
export * from './compare.js';
export type {
  CaseResult,
  CaseSpec,
  MessagesClientCtx,
  MessagesClientSuiteOptions,
  SharedCases,
} from './context.js';
export * from './entry.js';
export * from './output.js';
export * from './read-cuts.js';
export * from './relay.js';
export * from './suite.js';
export * from './target.js';
