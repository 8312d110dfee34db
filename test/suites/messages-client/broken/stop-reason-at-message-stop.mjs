import { main } from './base.mjs';

await main({ stopReasonAtMessageStop: true });
