export { type RecordingProxy, type RecordingProxyOptions, startRecordingProxy } from './proxy.js';
export {
  type ChunkScrubber,
  createChunkScrubber,
  isSecretName,
  MIN_SECRET_LENGTH,
  maskSecrets,
  mergeSecrets,
  REDACTED,
  redactBody,
  redactHeaders,
  redactTarget,
  scrubSecrets,
  secretsOf,
  secretsOfTarget,
} from './redact.js';
export { createEventStreamScrubber } from './stream-deltas.js';
