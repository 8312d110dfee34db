export * from './client.js';
export * from './command.js';
export * from './errors.js';
export * from './probe.js';
export * from './probe-command.js';
export * from './probe-format.js';
export * from './probe-http.js';
export * from './target.js';
