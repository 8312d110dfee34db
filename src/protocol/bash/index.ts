export * from './blocklist.js';
export * from './limits.js';
export * from './output.js';
export * from './tool-result.js';
