import { main } from './base.mjs';

await main({ signalAsExitZero: true });
