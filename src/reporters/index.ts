export * from './console.js';
export * from './html.js';
export * from './json.js';
export * from './junit.js';
export * from './text.js';
export * from './write.js';
