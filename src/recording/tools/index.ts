export { type EndpointRewriter, rewriteFirstEndpoint } from './endpoint.js';
export { createLineRecorder, type LineRecorder } from './lines.js';
export { redactCommand, redactUrl, secretsOfEnv } from './redact-target.js';
export { type SseRecordingProxy, type SseRecordingProxyOptions, startSseRecordingProxy } from './sse.js';
export { recordStdioSession, type StdioRecorderOptions, type StdioRecording } from './stdio.js';
export type { SessionSink } from './store.js';
export {
  type StreamableHttpRecordingProxyOptions,
  startStreamableHttpRecordingProxy,
} from './streamable-http.js';
