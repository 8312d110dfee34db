import { main } from './base.mjs';

// Answers initialize (stdio), then nothing at all: a server that hangs once it started.
main({ silentAfterInitialize: true });
