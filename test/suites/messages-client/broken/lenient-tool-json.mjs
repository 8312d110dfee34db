import { main } from './base.mjs';

await main({ lenientToolJson: true });
