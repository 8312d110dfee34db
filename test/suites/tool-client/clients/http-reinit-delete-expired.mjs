import { main } from './base.mjs';

// Streamable HTTP: once a new session replaced the one answered 404, DELETE the old one (cleanup; a conforming client).
await main({ httpDeleteExpired: true });
