export * from './bounded.js';
export * from './map-values.js';
