import { main } from './base.mjs';

await main({ httpReinitializeNoRetry: true });
