import { main } from './base.mjs';

await main({ version: '2026-10-21' });
