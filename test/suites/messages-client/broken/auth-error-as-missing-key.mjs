import { main } from './base.mjs';

await main({ authErrorAsMissingKey: true });
