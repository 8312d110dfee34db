export * from './in-memory.js';
export * from './stream.js';
export * from './transport.js';
