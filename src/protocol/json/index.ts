export * from './bounded.js';
