import { main } from './base.mjs';

// Serves a tools/list sent before initialize (as the official SDK does) instead of refusing it.
main({ servesBeforeInitialize: true });
