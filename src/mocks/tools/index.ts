export * from './command.js';
export * from './journal.js';
export * from './journal-queries.js';
export * from './scenario.js';
export { MOCK_REQUEST_ID_BASE, MockToolSession, type SessionChannel } from './session.js';
export * from './sse.js';
export * from './stdio.js';
