import { main } from './base.mjs';

await main({ errorEventEndsStream: true });
