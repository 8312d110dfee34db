export { type RecordingProxy, type RecordingProxyOptions, startRecordingProxy } from './proxy.js';
export {
  REDACTED,
  redactBody,
  redactHeaders,
  SECRET_BODY_FIELD,
  SECRET_HEADER,
  scrubSecrets,
  secretsOf,
} from './redact.js';
