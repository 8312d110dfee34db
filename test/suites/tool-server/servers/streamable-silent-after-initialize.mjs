import { main } from './streamable-base.mjs';

// Answers initialize, then nothing: every other request gets an event stream left open.
main({ silentAfterInitialize: true });
