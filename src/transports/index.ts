export * from './bounded-body.js';
export * from './child-process.js';
export * from './in-memory.js';
export * from './sse-client.js';
export * from './stream.js';
export * from './streamable-http-client.js';
export * from './transport.js';
