import { main } from './base.mjs';

await main({ protocolVersion: '2025-06-18' });
