import { main } from './base.mjs';

// Dies when a client opens its 9th stream: a server gone in the middle of a run.
main({ exitAfterStreams: 8 });
