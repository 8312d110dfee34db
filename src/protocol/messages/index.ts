export * from './accumulate.js';
export * from './content-blocks.js';
export * from './errors.js';
export * from './request.js';
export * from './response.js';
export * from './stream-errors.js';
export * from './stream-events.js';
export * from './tools.js';
