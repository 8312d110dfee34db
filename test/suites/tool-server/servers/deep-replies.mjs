import { main } from './base.mjs';

// Answers initialize (stdio), then every request with a reply nested 20000 levels deep.
main({ deepReplies: true });
