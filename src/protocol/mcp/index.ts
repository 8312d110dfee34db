export * from './defaults.js';
export * from './initialize.js';
export * from './revision-changes.js';
export * from './revisions.js';
export * from './sse-events.js';
export * from './streamable-http.js';
export * from './tools.js';
export * from './version.js';
