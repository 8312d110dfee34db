export * from './client.js';
export * from './command.js';
export * from './errors.js';
export * from './frame-reducer.js';
export * from './options.js';
export * from './retry.js';
export * from './stream.js';
