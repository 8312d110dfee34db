export {
  type CallPolicy,
  callPolicy,
  MOCK_SERVER_NAME,
  REFERENCE_SERVER_NAME,
  REFERENCE_TOOL_PROPERTIES,
} from './call-policy.js';
export type { Channel, PostOutcome } from './channel.js';
export { openToolServer, type ToolServerCtx, type ToolServerSuiteOptions } from './context.js';
export { referenceToolServerCommand, toolServerSuiteEntry } from './entry.js';
export { arbitraryForSchema, argumentsArbitrary } from './schema-arbitrary.js';
export { createToolServerSuite, toolServerSuite } from './suite.js';
export {
  type CallToolsOption,
  describeTarget,
  parseCallTools,
  TOOL_SERVER_TARGET_OPTIONS,
  type ToolServerTarget,
  targetArgs,
  toolServerTargetFromOptions,
} from './target.js';
export type { TargetHeader } from './target-headers.js';
