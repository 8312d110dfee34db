export * from './arbitraries.js';
export type {
  CaseResult,
  CaseSpec,
  SharedCases,
  ToolCallInput,
  ToolClientCtx,
  ToolClientSuiteOptions,
} from './context.js';
export { ECHO_INPUT, NON_JSON_BANNER } from './context.js';
export * from './entry.js';
export * from './output.js';
export * from './suite.js';
export * from './target.js';
