export * from './batch.js';
export * from './envelope.js';
export * from './error-codes.js';
export * from './framing.js';
