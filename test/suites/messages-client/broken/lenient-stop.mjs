import { main } from './base.mjs';

await main({ lenientStop: true });
