// For tool handlers: the one-text-item result.
export { textResult } from '../../protocol/mcp/tools.js';
export { SseServerTransport, type SseServerTransportOptions } from '../../transports/sse-server.js';
export {
  createStreamableEndpoint,
  type StreamableEndpoint,
  type StreamableEndpointOptions,
  type StreamableSessionApp,
} from '../http/streamable-endpoint.js';
export { type ArgumentChecker, type CheckedArguments, compileArgumentChecker } from './arguments.js';
export { CallAbortedError } from './call.js';
export {
  createToolServerCore,
  type HandleOutcome,
  type JsonRpcReply,
  type OpenSessionOptions,
  parseErrorResponse,
  REFERENCE_SERVER_NAME,
  type ToolServerCore,
  type ToolServerCoreOptions,
  type ToolServerSession,
} from './core.js';
export {
  addTool,
  diagnosticText,
  diagnosticTool,
  echoTool,
  failTool,
  REFERENCE_TOOLS,
  SLOW_DEFAULT_MS,
  SLOW_MAX_MS,
  slowTool,
} from './reference-tools.js';
export { type RunToolServerIo, type RunToolServerOptions, runToolServer } from './run.js';
export { type ServeSessionOptions, serveSession } from './serve-session.js';
export {
  BODY_LIMIT_BYTES,
  buildToolServer,
  MESSAGE_PATH,
  STREAM_PATH,
  type ToolServerApp,
  type ToolServerOptions,
} from './sse-app.js';
export { type RunningToolServer, type StartToolServerOptions, startToolServer } from './start.js';
export { type StdioToolServer, type StdioToolServerOptions, serveToolsOverStdio } from './stdio.js';
export {
  buildStreamableToolServer,
  type RunningStreamableToolServer,
  STREAMABLE_TOOL_SERVER_VERSIONS,
  type StreamableToolServerOptions,
  startStreamableToolServer,
} from './streamable-app.js';
export {
  defineTool,
  type McpToolDefinition,
  type ToolContext,
  type ToolServerStats,
  type ToolSessionInfo,
  type ToolTransportName,
  toolOf,
} from './tool.js';
