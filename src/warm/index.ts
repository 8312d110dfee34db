export {
  MAX_ENV_FRAME_BYTES,
  MAX_STDIN_FRAME_BYTES,
  RelayFrameError,
  RelayFrameReader,
  relayFrame,
} from './frames.js';
export { WARM_RELAY_PATH } from './relay-path.js';
export {
  HANDLER_FAILED_STATUS,
  STDIN_BACKLOG_BYTES,
  startWarmServer,
  type WarmCase,
  type WarmHandler,
  type WarmServer,
  type WarmServerOptions,
} from './server.js';
