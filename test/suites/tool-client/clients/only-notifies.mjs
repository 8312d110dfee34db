import { main } from './base.mjs';

await main({ onlyNotifies: true });
