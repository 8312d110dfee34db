import { main } from './base.mjs';

await main({ dropFramesWithoutEvent: true });
