import { main } from './base.mjs';

await main({ callBeforeInitialized: true });
