import { main } from './base.mjs';

await main({ failOnUnknownNotification: true });
