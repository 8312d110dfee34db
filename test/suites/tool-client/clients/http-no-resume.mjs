import { main } from './base.mjs';

// Speaks every revision of Streamable HTTP, so that a 2025-11-25 run, where a client SHOULD
// reconnect to a stream the server closed, judges it as well as an older one, where resuming is optional.
main({
  httpNoResume: true,
  protocolVersion: '2025-11-25',
  speaks: ['2025-03-26', '2025-06-18', '2025-11-25'],
});
