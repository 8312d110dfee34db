import { main } from './base.mjs';

// Speaks 2025-11-25, so the retry rule binds it, and resumes a dropped stream after 100 ms
// whatever the stream's retry field asked for.
main({ protocolVersion: '2025-11-25', speaks: ['2025-11-25'], httpIgnoreRetry: true });
