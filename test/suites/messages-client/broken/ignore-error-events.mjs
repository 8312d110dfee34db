import { main } from './base.mjs';

await main({ ignoreErrorEvents: true, lenientStop: true });
